"""Training data of the move network, as written by `tune export` (format: src/tune/export.rs).

A `Split` maps one exported folder with numpy and cuts it into batches of consecutive plies,
optionally with the teacher's soft targets joined to it (`scripts/teacher/join.py`).
"""

import json
import os

import numpy as np
import torch


class Split:
    """One exported folder: `N` plies, `M` legal moves, `K` hand features."""

    def __init__(self, folder, teacher=None, teacher_plies=None):
        """`teacher`: a folder of `join.py` (`soft.f32` per legal move, `has.u8` per ply);
        `teacher_plies`: keep only the first that many labelled plies."""
        self.folder = folder
        with open(os.path.join(folder, "meta.json")) as f:
            self.meta = json.load(f)

        def load(name, dtype):
            return np.memmap(os.path.join(folder, name), dtype=dtype, mode="r")

        self.board_idx = load("board_idx.u16", np.uint16)
        self.board_off = load("board_off.i64", np.int64)
        self.move_off = load("move_off.i64", np.int64)
        self.label = load("label.i32", np.int32)
        self.rows = load("rows.u16", np.uint16).reshape(-1, 2)
        self.feat_off = load("feat_off.i64", np.int64)
        self.feat_idx = load("feat_idx.u16", np.uint16)
        self.feat_val = load("feat_val.i16", np.int16)
        self.plies = len(self.label)
        assert self.plies == self.meta["plies"], folder
        self.linear = np.fromfile(os.path.join(folder, "linear.i32"), dtype=np.int32)
        self.soft = self.has = None
        if teacher is not None:
            self.soft = np.fromfile(os.path.join(teacher, "soft.f32"), dtype=np.float32)
            self.has = np.fromfile(os.path.join(teacher, "has.u8"), dtype=np.uint8).astype(bool)
            assert len(self.has) == self.plies and len(self.soft) == int(self.move_off[-1]), teacher
            if teacher_plies is not None:
                self.has &= np.cumsum(self.has) <= teacher_plies
        self.labelled = 0 if self.has is None else int(self.has.sum())

    def batch(self, lo, hi):
        """Plies `lo..hi` as tensors (see `model.MoveNet.forward`); with a teacher, also `soft`
        (per move, its probability) and `has` (per ply, whether it is labelled)."""
        b0, b1 = int(self.board_off[lo]), int(self.board_off[hi])
        m0, m1 = int(self.move_off[lo]), int(self.move_off[hi])
        f0, f1 = int(self.feat_off[m0]), int(self.feat_off[m1])
        moves_per_ply = np.diff(self.move_off[lo : hi + 1])
        extra = {}
        if self.has is not None:
            extra = {"soft": torch.from_numpy(self.soft[m0:m1].copy()), "has": torch.from_numpy(self.has[lo:hi].copy())}
        return extra | {
            "board_idx": torch.from_numpy(self.board_idx[b0:b1].astype(np.int64)),
            "board_off": torch.from_numpy(self.board_off[lo:hi] - b0),
            "rows": torch.from_numpy(self.rows[m0:m1].astype(np.int64)),
            "ply_of_move": torch.repeat_interleave(torch.arange(hi - lo), torch.from_numpy(moves_per_ply)),
            "moves_per_ply": torch.from_numpy(moves_per_ply),
            "feat_idx": torch.from_numpy(self.feat_idx[f0:f1].astype(np.int64)),
            "feat_val": torch.from_numpy(self.feat_val[f0:f1].astype(np.float32) / 256.0),
            "feat_off": torch.from_numpy(self.feat_off[m0:m1] - f0),
            "label": torch.from_numpy(self.move_off[lo:hi] - m0 + self.label[lo:hi]),
        }

    def ranges(self, size):
        """`(lo, hi)` of consecutive batches of `size` plies covering the split."""
        return [(lo, min(lo + size, self.plies)) for lo in range(0, self.plies, size)]
