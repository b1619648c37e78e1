"""The move network in PyTorch, quantisation-aware: the float twin of src/model/network.rs.

Shapes and fixed-point scales are documented there; `export.py` writes the integer file. With
`qat` on, weights are rounded to their integer grid and activations floored to theirs in the
forward pass (straight-through gradients), so the trained float model computes what the integer
inference computes, up to the order of roundings.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

BOARD_INPUTS = 977
# With the players' ratings (docs/notes-ratings.md; src/model/network/inputs.rs, `rating_inputs`):
# 977 + the mover's rating bucket (20), 997 + the opponent's (20), 1017 + the speed class (5).
RATING_BUCKETS, SPEEDS = 20, 5
RATED_BOARD_INPUTS = BOARD_INPUTS + 2 * RATING_BUCKETS + SPEEDS
assert RATED_BOARD_INPUTS == 1022
SQUARE_INPUTS = 384

# Fixed-point scales (log2), as in src/model/network.rs.
S_W1, S_W2, S_B2, S_P, S_PB, S_Q, S_E, S_V = 9, 12, 21, 12, 21, 12, 12, 10
S_A, S_C, S_PC, S_QC, S_H = 9, 9, 12, 10, 12


def ste_round(x, bits):
    """`x` rounded to multiples of 2^-bits, clamped to the i16 range, gradient passed through."""
    s = float(1 << bits)
    q = torch.clamp(torch.round(x * s), -32768, 32767) / s
    return x + (q - x).detach()


def ste_round32(x, bits):
    s = float(1 << bits)
    q = torch.round(x * s) / s
    return x + (q - x).detach()


def ste_floor(x, bits):
    """`x` floored to multiples of 2^-bits (an arithmetic right shift), gradient passed through."""
    s = float(1 << bits)
    q = torch.floor(x * s) / s
    return x + (q - x).detach()


class MoveNet(nn.Module):
    def __init__(self, hand, linear_init, h1=256, h2=64, d=64, inputs=BOARD_INPUTS):
        """`inputs`: board inputs, the data's `board_inputs` (meta.json): 977, or 1022 with ratings."""
        super().__init__()
        self.hand, self.h1, self.h2, self.d, self.inputs = hand, h1, h2, d, inputs
        self.w1 = nn.EmbeddingBag(inputs, h1, mode="sum")
        nn.init.normal_(self.w1.weight, 0.0, 0.05)
        self.b1 = nn.Parameter(torch.full((h1,), 0.1))
        self.l2 = nn.Linear(h1, h2)
        self.p = nn.Linear(h2, d)
        self.q = nn.Linear(h2, d, bias=False)
        self.ef = nn.Embedding(SQUARE_INPUTS, d)
        self.et = nn.Embedding(SQUARE_INPUTS, d)
        self.gf = nn.Embedding(SQUARE_INPUTS, d)
        self.gt = nn.Embedding(SQUARE_INPUTS, d)
        for e in (self.ef, self.et, self.gf, self.gt):
            nn.init.normal_(e.weight, 0.0, 0.05)
        self.f = nn.EmbeddingBag(hand, d, mode="sum")
        nn.init.normal_(self.f.weight, 0.0, 0.02)
        self.v = nn.Parameter(torch.randn(d) * 0.05)
        self.linear = nn.EmbeddingBag(hand, 1, mode="sum")
        with torch.no_grad():
            self.linear.weight.copy_(torch.as_tensor(linear_init, dtype=torch.float32).view(-1, 1) / 256.0)
        self.qat = False
        # Ablations: leave out the hand features (linear model and F), or the board context.
        self.no_hand = False
        self.no_board = False

    def load_init(self, state):
        """Loads a checkpoint's state (`train.py --init`): of the same shape, or narrower
        (`load_narrower`), or with fewer board inputs (977 into 1022): its rows of `w1` are copied
        and the new rows are zero, so that without the new inputs (a game without ratings) the
        network computes what the checkpoint computes."""
        rows = state["w1.weight"].shape[0]
        assert rows <= self.inputs, f"the checkpoint has {rows} board inputs, this network {self.inputs}"
        if rows < self.inputs:
            state = dict(state)
            w1 = torch.zeros(self.inputs, state["w1.weight"].shape[1], dtype=state["w1.weight"].dtype)
            w1[:rows] = state["w1.weight"]
            state["w1.weight"] = w1
        if state["b1"].shape[0] == self.h1 and state["l2.bias"].shape[0] == self.h2 and state["v"].shape[0] == self.d:
            self.load_state_dict(state)
        else:
            self.load_narrower(state)
        return state

    def load_narrower(self, state):
        """Loads a checkpoint's state whose `h1`, `h2` and `d` are at most this network's, so that
        this network computes the same logits (function-preserving widening, as in Net2Net:
        Chen, Goodfellow and Shlens, ICLR 2016, arXiv:1511.05641). The old units keep their
        weights; each new unit keeps its random incoming weights and gets zero outgoing ones
        (its columns of `l2`, `p` and `q`, its entries of `v`, its columns of `gf` and `gt`), so it
        starts silent and is trained from there."""
        h1, h2, d = state["b1"].shape[0], state["l2.bias"].shape[0], state["v"].shape[0]
        assert h1 <= self.h1 and h2 <= self.h2 and d <= self.d, "the checkpoint is wider than this network"
        with torch.no_grad():
            self.w1.weight[:, :h1] = state["w1.weight"]
            self.b1[:h1] = state["b1"]
            for layer, old_out, old_in in ((self.l2, h2, h1), (self.p, d, h2), (self.q, d, h2)):
                name = "l2" if layer is self.l2 else "p" if layer is self.p else "q"
                layer.weight[:old_out, :old_in] = state[f"{name}.weight"]
                layer.weight[:old_out, old_in:] = 0.0
                if layer.bias is not None:
                    layer.bias[:old_out] = state[f"{name}.bias"]
            for name in ("ef", "et", "f"):
                getattr(self, name).weight[:, :d] = state[f"{name}.weight"]
            for name in ("gf", "gt"):
                getattr(self, name).weight[:, :d] = state[f"{name}.weight"]
                getattr(self, name).weight[:, d:] = 0.0
            self.v[:d] = state["v"]
            self.v[d:] = 0.0
            self.linear.weight.copy_(state["linear.weight"])

    def w(self, t, bits):
        return ste_round(t, bits) if self.qat else t

    def b(self, t, bits):
        return ste_round32(t, bits) if self.qat else t

    def act(self, x, bits):
        return ste_floor(x, bits) if self.qat else x

    def forward(self, batch):
        """Logits (nats) of every legal move of the batch, shape (M,)."""
        a = F.embedding_bag(batch["board_idx"], self.w(self.w1.weight, S_W1), batch["board_off"], mode="sum")
        a = torch.clamp(a + self.w(self.b1, S_W1), 0.0, 1.0)
        c = F.linear(a, self.w(self.l2.weight, S_W2), self.b(self.l2.bias, S_B2))
        c = torch.clamp(self.act(c, S_C), 0.0, 1.0)
        if self.no_board:
            c = torch.zeros_like(c)
        pc = self.act(F.linear(c, self.w(self.p.weight, S_P), self.b(self.p.bias, S_PB)), S_PC)
        qc = self.act(F.linear(c, self.w(self.q.weight, S_Q)), S_QC)
        ply = batch["ply_of_move"]
        fr, to = batch["rows"][:, 0], batch["rows"][:, 1]
        hand = F.embedding_bag(
            batch["feat_idx"], self.w(self.f.weight, S_E), batch["feat_off"], mode="sum", per_sample_weights=batch["feat_val"]
        )
        if self.no_hand:
            hand = torch.zeros_like(hand)
        hidden = pc[ply] + self.w(self.ef.weight, S_E)[fr] + self.w(self.et.weight, S_E)[to] + self.act(hand, S_H)
        hidden = torch.clamp(hidden, 0.0, 1.0)
        g = self.w(self.gf.weight, S_E)[fr] + self.w(self.gt.weight, S_E)[to]
        z = hidden @ self.w(self.v, S_V) + (qc[ply] * g).sum(-1)
        lin = F.embedding_bag(batch["feat_idx"], self.b(self.linear.weight, 8), batch["feat_off"], mode="sum", per_sample_weights=batch["feat_val"])
        lin = self.act(lin.squeeze(-1), 8)
        if self.no_hand:
            lin = torch.zeros_like(lin)
        return self.act(z, 8) + lin


def ply_log_probs(logits, batch, floor):
    """log p of the played move of each ply under softmax(logits) mixed with a uniform `floor`."""
    return move_log_probs(logits, batch, floor)[batch["label"]]


def move_log_probs(logits, batch, floor):
    """log p of every legal move (shape (M,)) under softmax(logits) mixed with a uniform `floor`."""
    ply = batch["ply_of_move"]
    n = batch["moves_per_ply"].to(logits.dtype)
    plies = len(n)
    zmax = torch.full((plies,), -1e30, dtype=logits.dtype).scatter_reduce(0, ply, logits, reduce="amax", include_self=True)
    e = torch.exp(logits - zmax[ply].detach())
    s = torch.zeros(plies, dtype=logits.dtype).index_add(0, ply, e)
    log_soft = logits - zmax.detach()[ply] - torch.log(s)[ply]
    return torch.log((1.0 - floor) * torch.exp(log_soft) + floor / n[ply])


def soft_cross_entropy(logits, batch, floor, temperature=1.0):
    """Per ply, the cross-entropy (nats) of the coder's distribution against the teacher's
    (`batch["soft"]`, sharpened or flattened by `temperature`), over the legal moves."""
    ply = batch["ply_of_move"]
    plies = len(batch["moves_per_ply"])
    t = batch["soft"].to(logits.dtype)
    if temperature != 1.0:
        t = t.clamp_min(1e-12) ** (1.0 / temperature)
        t = t / torch.zeros(plies, dtype=t.dtype).index_add(0, ply, t)[ply]
    return -torch.zeros(plies, dtype=logits.dtype).index_add(0, ply, t * move_log_probs(logits, batch, floor))
