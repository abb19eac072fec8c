"""A policy that scores every move with one shared network, from the layout that move leaves.

:class:`PolicyNet` gives each of the 176 (double-six) actions its own output weights, so what it
learns about one placement does not carry over to the next. :class:`MoveNet` instead builds,
for every placement, features of the position it leaves, all read off the observation:

* the points it scores and the count it leaves (``move_points``, ``move_count``);
* the pips and values of the four ends after it;
* what the **next seat** could score back on that layout with a tile it may hold (a tile
  neither in the mover's hand nor played, without a pip the next seat is known to lack): the
  best such reply, the expected total, and how many scoring replies there are;
* what the mover could score next with its own remaining tiles (repeaters);
* the tile's pips, whether it is a double, and the end it goes to;
* with ``mobility`` (``--arch move-mobility``), who can still play on the layout it leaves: how
  many of the mover's other tiles fit an open end, whether none does (a draw or a pass comes),
  the share of the tiles the next seat may hold that fit, and the pips the mover keeps (what the
  domino earns the others);
* with ``tiles`` (``--arch move-tiles``, which has ``mobility`` too), a token for each tile of the
  set after the move: whether the mover keeps it, the next seat may hold it, it is unseen but
  not the next seat's (a pip it lacks), or it is on the table, and how many ways and for how many
  points it could be laid on the layout the move leaves. One self-attention layer over the
  tokens, pooled over the mover's tiles, the next seat's possible tiles and all of them, adds to
  the move's score: the network can relate tile to tile (which of my tiles answer which of
  theirs) where the scalar features only count.
  :meth:`MoveNet.fix_tiles` keeps that attention as it is while the rest trains, so that a
  batch pools each move's tiles once (:meth:`MoveNet.prepare`) instead of every minibatch
  recomputing and differentiating it.

A shared two-layer network scores each move from those features and an embedding of the whole
observation; skip weights add the points now and the reply threat straight to the logit. The
value head reads the embedding. Everything is plain tensor code, so an exported file (ONNX or
TorchScript) stays self-contained. The reply is judged with the usual placement of a tile on an end;
the rarer cases (a first double turning into the sniff, doubles laid in line) are left to the
learned part.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import torch
from torch import nn

from sniff_env.observation import Observer, observer_for
from sniff_env.rules import Points, Rules
from sniff_env.scoring import MAX_COUNT, scoring_table
from training.lib.layers import linear_layer

MOVE_FEATURES = 12
"""Per-move scalar features (before the one-hot end and the new end pips)."""
MOBILITY_FEATURES = 4
"""The scalar features ``mobility`` adds after them."""
TILE_FEATURES = 6
"""Per tile token of ``tiles``: kept, the next seat's possible, other unseen, on the table, ways
to lay it, points it scores."""
TILE_DIM = 32
"""The width of a tile token inside the attention layer."""


def div5_flag(rules: Rules) -> int:
    """Where the observation's rules block says that points are the count / 5."""
    flags = [Observer.rules_block(replace(rules, points=p)) for p in (Points.COUNT, Points.COUNT_DIV5)]
    return int(np.flatnonzero(flags[0] != flags[1])[0])


class MoveNet(nn.Module):
    """Observation [B, obs_size] -> (logits [B, num_actions], value [B]); see the module doc."""

    # constants to TorchScript: a branch a network lacks is not compiled
    __constants__ = ("mobility", "tiles", "tile_features")

    def __init__(self, rules: Rules, hidden: int = 256, move_hidden: int = 64, points_prior: float = 5.0,
                 mobility: bool = False, tiles: bool = False) -> None:
        super().__init__()
        if tiles and not mobility:
            raise ValueError("the tile tokens come with the mobility features: pass mobility=True too")
        self.mobility, self.tiles, self.tile_features = mobility, tiles, TILE_FEATURES
        self.tiles_fixed = False  # see fix_tiles
        observer = observer_for(rules)
        codec, ts = observer.codec, observer.ts
        n, p, big = rules.num_players, rules.max_pip + 1, rules.max_pip
        self.obs_size, self.num_actions, self.hidden = observer.size, codec.num_actions, hidden
        self.p, self.n, self.t = p, n, ts.size
        self.count_scale = float(8 * big)
        self.max_count = MAX_COUNT - 1
        self.end_scale = float(2 * big)
        off = observer.pieces
        self.o_hand, self.o_played = off["hand"].start, off["played_by"].start
        self.o_end_pip, self.o_end_open, self.o_end_value = off["end_pip"].start, off["end_open"].start, \
            off["end_value"].start
        self.o_lacking, self.o_lead = off["lacking"].start, off["lead"].start
        self.o_move_points, self.o_move_count = off["move_points"].start, off["move_count"].start

        a_count = codec.num_actions
        lo = torch.zeros(a_count)
        hi = torch.zeros(a_count)
        slot = torch.full((a_count,), 4, dtype=torch.long)
        tile = torch.full((a_count,), -1, dtype=torch.long)
        inline = torch.zeros(a_count)
        for a in range(a_count):
            t, s, inl = codec.decode(a)
            if t < 0:
                continue
            lo[a], hi[a] = ts.tiles[t]
            slot[a], tile[a], inline[a] = s, t, float(inl)
        placed = (slot < 4).float()
        self.register_buffer("lo", lo)
        self.register_buffer("hi", hi)
        self.register_buffer("slot_hot", nn.functional.one_hot(slot, 5).float())
        self.register_buffer("placed", placed)
        self.register_buffer("inline", inline)
        self.register_buffer("tile_idx", tile.clamp(min=0))
        self.register_buffer("is_double", (lo == hi).float() * (tile >= 0).float())
        self.register_buffer("tile_hot", nn.functional.one_hot(tile.clamp(min=0), ts.size).float()
                             * (tile >= 0).float()[:, None])
        table = scoring_table(rules.scoring)
        # what a reply scores, in the count's points; a row whose rules block says "points / 5"
        # divides (one network can so learn several presets)
        self.register_buffer("points", torch.tensor([c if table[c] else 0 for c in range(MAX_COUNT)],
                                                    dtype=torch.float32))
        self.o_div5 = off["rules"].start + div5_flag(rules)
        pair = torch.zeros(p, p, dtype=torch.long)
        for t, (x, y) in enumerate(ts.tiles):
            pair[x, y] = pair[y, x] = t
        self.register_buffer("pair", pair)
        # pair_hot[x, y] is tile (x, y) one-hot; not saved (computed from the tile set)
        self.register_buffer("pair_hot", nn.functional.one_hot(pair, ts.size).float(), persistent=False)
        self.register_buffer("pips", torch.arange(p, dtype=torch.float32))
        tile_pip = torch.zeros(ts.size, p)  # 1 where the tile shows the pip
        for t, (x, y) in enumerate(ts.tiles):
            tile_pip[t, x] = tile_pip[t, y] = 1.0
        # not saved: files made before these existed still load
        self.register_buffer("tile_pip", tile_pip, persistent=False)
        self.register_buffer("tile_sum", torch.tensor([float(x + y) for x, y in ts.tiles]), persistent=False)
        fit = torch.zeros(a_count, 4, p)  # the ends (and their pips) each placement fits
        for a in range(a_count):
            if tile[a] >= 0 and slot[a] < 4:
                fit[a, slot[a], int(lo[a])] = 1.0
                fit[a, slot[a], int(hi[a])] = 1.0
        self.register_buffer("fit_hot", fit)
        draw_hot = torch.zeros(a_count)
        draw_hot[codec.draw_action] = 1.0
        self.register_buffer("draw_hot", draw_hot)
        self.register_buffer("lead_open", torch.tensor([1.0, 1.0, 0.0, 0.0]))

        g = 2.0**0.5
        self.trunk = nn.Sequential(linear_layer(self.obs_size, hidden, g), nn.ReLU(), linear_layer(hidden, hidden, g),
                                   nn.ReLU())
        self.v = linear_layer(hidden, 1, 1.0)
        self.base_move = MOVE_FEATURES + MOBILITY_FEATURES * mobility + 5 + 4 * p
        self.per_move = self.base_move + tiles * self.t * TILE_FEATURES
        self.state_in = linear_layer(hidden, move_hidden, 1.0)
        self.move_in = linear_layer(self.base_move, move_hidden, 1.0)
        if tiles:
            d = TILE_DIM
            self.tile_embed = nn.Parameter(0.1 * torch.randn(self.t, d))
            self.tile_in = linear_layer(TILE_FEATURES, d, 1.0)
            self.tile_qkv = linear_layer(d, 3 * d, 1.0)
            self.tile_mix = linear_layer(d, d, 1.0)
            self.tile_mlp = nn.Sequential(linear_layer(d, 2 * d, g), nn.ReLU(), linear_layer(2 * d, d, 1.0))
            # zero: a network grown from a move-mobility one starts by playing exactly as it
            self.tile_out = linear_layer(3 * d, move_hidden, 0.0)
        self.move_out = nn.Sequential(nn.ReLU(), linear_layer(move_hidden, move_hidden, g), nn.ReLU(),
                                      linear_layer(move_hidden, 1, 0.01))
        self.skip = nn.Parameter(torch.tensor([points_prior, 0.0, 0.0]))

    def candidate_mask(self, obs: torch.Tensor) -> torch.Tensor:
        """[B, A] 1.0 for the candidate actions (a superset of the legal ones): held tiles on a
        matching open end, leads while leading, the draw."""
        p = self.p
        hand = obs[:, self.o_hand : self.o_hand + self.t]
        end_hot = obs[:, self.o_end_pip : self.o_end_pip + 4 * p].reshape(obs.shape[0], 4, p)
        end_open = obs[:, self.o_end_open : self.o_end_open + 4]
        held = hand @ self.tile_hot.t()  # [B, A]: the action's tile is in hand
        fits = torch.einsum("bep,aep->ba", end_hot * end_open[..., None], self.fit_hot)
        leading = obs[:, self.o_lead : self.o_lead + 1]
        return held * ((fits > 0).float() + leading * self.slot_hot[:, 4]).clamp(max=1.0) + self.draw_hot

    def candidates(self, obs: torch.Tensor) -> torch.Tensor:
        """[B, K] action indices covering every candidate (padded with repeats of the first)."""
        return self._top(self.candidate_mask(obs))

    def _top(self, cand: torch.Tensor) -> torch.Tensor:
        """[B, K]: the indices of the K largest of ``cand``, K the most candidates of any row."""
        most = (cand > 0).sum(1).max()
        if torch.jit.is_scripting():
            k = int(most.item())
        else:  # torch.export (ONNX): a symbolic K, within bounds (the draw is always a candidate)
            k = most.item()
            torch._check(k >= 1)
            torch._check(k <= cand.shape[1])
        return torch.topk(cand, k, dim=1).indices

    def move_features(self, obs: torch.Tensor, idx: torch.Tensor) -> torch.Tensor:
        """[B, K, F]: the per-move features of the module doc for actions ``idx`` [B, K]."""
        b, p, k = obs.shape[0], self.p, idx.shape[1]
        hand = obs[:, self.o_hand : self.o_hand + self.t]
        played = obs[:, self.o_played : self.o_played + self.t * self.n].reshape(b, self.t, self.n).sum(-1)
        unseen = (1.0 - hand - played).clamp(min=0.0)
        lack_next = obs[:, self.o_lacking + p : self.o_lacking + 2 * p]
        end_hot = obs[:, self.o_end_pip : self.o_end_pip + 4 * p].reshape(b, 4, p)
        end_pip = (end_hot * self.pips).sum(-1)  # [B, 4]
        end_open = obs[:, self.o_end_open : self.o_end_open + 4]
        end_val = obs[:, self.o_end_value : self.o_end_value + 4] * self.end_scale
        mp = torch.gather(obs[:, self.o_move_points : self.o_move_points + self.num_actions], 1, idx)
        mc = torch.gather(obs[:, self.o_move_count : self.o_move_count + self.num_actions], 1, idx)
        after = mc * self.count_scale  # [B, K]
        lo, hi, dbl, inl = self.lo[idx], self.hi[idx], self.is_double[idx], self.inline[idx]
        slot_hot = self.slot_hot[idx]  # [B, K, 5]
        slot4, lead = slot_hot[..., :4], slot_hot[..., 4:]
        cur = (end_pip[:, None, :] * slot4).sum(-1)  # pip of the end each move goes to
        other = lo + hi - cur
        new_pip = dbl * cur + (1.0 - dbl) * other
        new_val = dbl * (1.0 - inl) * 2.0 * cur + dbl * inl * cur + (1.0 - dbl) * other
        pips_after = end_pip[:, None, :] * (1.0 - slot4) + new_pip[..., None] * slot4  # [B, K, 4]
        vals_after = end_val[:, None, :] * (1.0 - slot4) + new_val[..., None] * slot4
        zero = torch.zeros_like(lo)
        # a lead leaves west = low half, east = high half, nothing else open
        pips_after = pips_after * (1.0 - lead) + lead * torch.stack([lo, hi, lo, lo], -1)
        vals_after = vals_after * (1.0 - lead) + lead * torch.stack([lo, hi, zero, zero], -1)
        open_after = end_open[:, None, :] * (1.0 - lead) + lead * self.lead_open
        # replies: a tile (end pip, q) on each open end
        q = self.pips  # [P]
        pe = pips_after[..., None]  # [B, K, 4, 1]
        add = torch.where(q == pe, 2.0 * q, q)  # what the reply tile's free end adds
        reply_count = after[..., None, None] - vals_after[..., None] + add  # [B, K, 4, P]
        pts = self.points[reply_count.round().clamp(0, self.max_count).long()] * open_after[..., None]
        div5 = obs[:, self.o_div5].reshape(b, 1, 1, 1)
        pts = torch.where(div5 > 0.5, torch.floor(pts / 5.0), pts)
        end_idx = pips_after.round().long().clamp(0, p - 1)
        tiles = self.pair[end_idx]  # [B, K, 4, P]: the tile (end pip, q)
        flat = tiles.reshape(b, -1)
        avail = torch.gather(unseen, 1, flat).reshape(tiles.shape)
        lack_end = torch.gather(lack_next, 1, end_idx.reshape(b, -1)).reshape(b, k, 4, 1)
        threat = pts * avail * (1.0 - lack_end) * (1.0 - lack_next[:, None, None, :])
        mine = torch.gather(hand, 1, flat).reshape(tiles.shape)
        mine = mine * (tiles != self.tile_idx[idx][..., None, None]).float()  # not the tile being played
        follow = pts * mine
        scale = 1.0 / self.count_scale  # points in the unit of move_points
        columns = [
            mp, mc,
            threat.amax((-1, -2)) * scale, threat.sum((-1, -2)) * scale, (threat > 0).float().sum((-1, -2)) * 0.1,
            follow.amax((-1, -2)) * scale, (follow > 0).float().sum((-1, -2)) * 0.1,
            (lo + hi) / self.end_scale, dbl, inl, self.placed[idx], unseen.sum(-1, keepdim=True).expand(b, k) / self.t,
        ]
        new_hot = nn.functional.one_hot(end_idx, p).float() * open_after[..., None]
        parts = [slot_hot, new_hot.reshape(b, k, 4 * p)]
        if self.mobility:  # (tiles come with mobility)
            laid = self.tile_hot[idx]  # [B, K, T]
            kept = (hand[:, None, :] - laid).clamp(min=0.0)  # the hand after each move
            possible = unseen * (1.0 - (lack_next @ self.tile_pip.t()).clamp(max=1.0))  # the next seat may hold
            columns += self.mobility_features(kept, possible, new_hot)
            if self.tiles:
                parts.append(self.tile_tokens(kept, possible, unseen, played, laid, pts, end_idx, open_after)
                             .reshape(b, k, self.t * self.tile_features))
        parts.insert(0, torch.stack(columns, -1))
        # the draw (slot 4, as a lead) reads as a lead of no tile; the callers zero a row's padding
        return torch.cat(parts, -1)

    def tile_tokens(self, kept: torch.Tensor, possible: torch.Tensor, unseen: torch.Tensor, played: torch.Tensor,
                    laid: torch.Tensor, pts: torch.Tensor, end_idx: torch.Tensor,
                    open_after: torch.Tensor) -> torch.Tensor:
        """[B, K, T, TILE_FEATURES]: the ``tiles`` tokens of the module doc, from the hand after each
        move ``kept`` and the tile it lays ``laid`` [B, K, T], the tiles the next seat may hold, the
        unseen and the played ones [B, T], what a tile (end pip, q) scores on each end after each
        move ``pts`` [B, K, 4, P], those ends' pips ``end_idx`` [B, K, 4] and whether they are open
        ``open_after`` [B, K, 4]."""
        other = unseen - possible
        on_table = (played[:, None, :] + laid).clamp(max=1.0)
        at = self.pair_hot[end_idx]  # [B, K, 4, P, T]: tile (end pip, q), per end and q
        ways = (at * open_after[..., None, None]).sum((2, 3)) / 4.0
        # on one end each tile appears once at most, so the sum over q picks its points there
        best = torch.einsum("bkeq,bkeqt->bket", pts, at).amax(2) / self.count_scale
        return torch.stack([kept, possible[:, None, :].expand_as(kept), other[:, None, :].expand_as(kept),
                            on_table, ways, best], -1)

    def tile_pooled(self, flat: torch.Tensor) -> torch.Tensor:
        """[..., 3 * TILE_DIM]: :meth:`tile_pool` of each move's flattened tokens [..., T *
        TILE_FEATURES]. Rows without tokens (a batch's padding) share the pool of no tiles,
        computed once, so a padded batch costs what its candidates cost."""
        rows = flat.reshape(-1, flat.shape[-1])
        live = (rows != 0).any(-1).nonzero()[:, 0]
        tokens = rows.index_select(0, live).unflatten(-1, (self.t, self.tile_features))
        empty = self.tile_pool(torch.zeros_like(rows[:1]).unflatten(-1, (self.t, self.tile_features)))
        out = empty.expand(rows.shape[0], -1).index_copy(0, live, self.tile_pool(tokens))
        return out.reshape(flat.shape[:-1] + (out.shape[-1],))

    def tile_pool(self, tokens: torch.Tensor) -> torch.Tensor:
        """[..., 3 * TILE_DIM]: one self-attention layer over a move's tokens [..., T,
        TILE_FEATURES] (with a residual and a small MLP), pooled over the mover's kept tiles, the
        next seat's possible ones, and all; ``tile_out`` of it is what the tiles add to the move's
        hidden layer."""
        x = self.tile_in(tokens) + self.tile_embed
        q, key, v = self.tile_qkv(x).chunk(3, -1)
        att = torch.softmax(q @ key.transpose(-1, -2) / (key.shape[-1] ** 0.5), -1)
        x = x + self.tile_mix(att @ v)
        x = x + self.tile_mlp(x)
        kept, possible = tokens[..., 0:1], tokens[..., 1:2]
        return torch.cat([(x * kept).sum(-2) / kept.sum(-2).clamp(min=1.0),
                          (x * possible).sum(-2) / possible.sum(-2).clamp(min=1.0), x.mean(-2)], -1)

    def fix_tiles(self) -> None:
        """Keep the tile attention's weights as they are (``tile_out``, which reads its pool,
        still learns): :meth:`prepare` then pools each move's tiles once, and a training step
        through :meth:`forward_prepared` neither recomputes nor differentiates the attention.
        :meth:`forward` is unchanged."""
        if not self.tiles:
            raise ValueError("only a network with tiles (--arch move-tiles) has tile attention to fix")
        for part in (self.tile_in, self.tile_qkv, self.tile_mix, self.tile_mlp):
            part.requires_grad_(False)
        self.tile_embed.requires_grad_(False)
        self.tiles_fixed = True

    def mobility_features(self, kept: torch.Tensor, possible: torch.Tensor,
                          new_hot: torch.Tensor) -> list[torch.Tensor]:
        """The ``mobility`` features of the module doc, each [B, K], from the hand after each move
        ``kept`` [B, K, T], the tiles the next seat may hold ``possible`` [B, T] and the open ends'
        pips after each move ``new_hot`` [B, K, 4, P]."""
        open_pips = new_hot.sum(2).clamp(max=1.0)  # [B, K, P]: a pip some open end shows
        fits = (open_pips @ self.tile_pip.t()).clamp(max=1.0)  # [B, K, T]: the tile fits an open end
        mine = (fits * kept).sum(-1)
        held = kept.sum(-1)
        theirs = (fits * possible[:, None, :]).sum(-1) / possible.sum(-1, keepdim=True).clamp(min=1.0)
        stuck = (mine == 0).float() * (held > 0).float()
        # counts in units of a 7-tile hand, pips in units of its most
        return [mine / 7.0, stuck, theirs, (kept * self.tile_sum).sum(-1) / (7.0 * self.end_scale)]

    def score(self, f: torch.Tensor, state: torch.Tensor, pooled: torch.Tensor | None = None) -> torch.Tensor:
        """[...]: the logit of each move from its features ``f`` [..., F] and the position's
        ``state_in`` embedding ``state`` (broadcast against ``f``'s leading dimensions); ``pooled``
        [..., 3 * TILE_DIM]: its :meth:`tile_pooled`, when already computed (``f`` then holds the
        features before the tokens alone)."""
        z = self.move_in(f[..., : self.base_move]) + state
        if self.tiles:
            if pooled is None:
                pooled = self.tile_pooled(f[..., self.base_move :])
            z = z + self.tile_out(pooled)
        return self.move_out(z).squeeze(-1) + self.skip[0] * f[..., 0] + self.skip[1] * f[..., 2] \
            + self.skip[2] * f[..., 3]

    def logits(self, obs: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
        """[B, A]: the candidates' scores, ``-1e4`` elsewhere (whatever else the batch holds);
        only the candidates are scored."""
        cand = self.candidate_mask(obs)
        idx = self._top(cand)
        # a row's padding (past its candidates) gets no features: its score is masked anyway, and
        # the tile branch skips moves without tokens
        feats = self.move_features(obs, idx) * torch.gather(cand, 1, idx)[..., None]
        s = self.score(feats, self.state_in(h)[:, None, :])
        out = torch.full((obs.shape[0], self.num_actions), -1e4, dtype=s.dtype, device=obs.device)
        return out.scatter(1, idx, s).masked_fill(cand == 0, -1e4)

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.trunk(obs)
        return self.logits(obs, h), self.v(h).squeeze(-1)

    def prepare(self, obs: torch.Tensor, grouped: bool = True) -> dict[str, torch.Tensor]:
        """Per row of ``obs``, what :meth:`forward_prepared` needs besides the weights (through
        :meth:`select_prepared`): the candidates ``idx`` [B, K], which of them are real (``real``
        [B, K]) and their features ``feats`` [B, K, F] (0 where not real). They depend on the
        observation alone, so a batch computes them once and every epoch of an update reuses them
        (rows select with ``[rows]`` on each entry). ``grouped`` computes them for rows with as
        many candidates together (no padding: fewer operations on a large batch); otherwise in
        one padded pass (fewer calls on a small batch, such as one collection step). Once the
        tiles are fixed (:meth:`fix_tiles`), ``feats`` stops before the tile tokens and
        ``pooled`` [B, K, 3 * TILE_DIM] holds their pool instead."""
        with torch.no_grad():
            cand = self.candidate_mask(obs)
            idx = self._top(cand)  # each row's candidates first: the mask is 0 or 1
            count = (cand > 0).sum(1)
            real = torch.arange(idx.shape[1], device=obs.device) < count[:, None]
            if not grouped:
                feats = self.move_features(obs, idx) * real[..., None]
            else:
                feats = torch.zeros(*idx.shape, self.per_move, device=obs.device)
                for k in torch.unique(count).tolist():
                    rows = (count == k).nonzero()[:, 0]
                    feats[rows, :k] = self.move_features(obs[rows], idx[rows, :k])
            out = {"obs": obs, "idx": idx, "real": real, "feats": feats}
            if self.tiles_fixed:
                out["pooled"] = self.tile_pooled(feats[..., self.base_move :])
                out["feats"] = feats[..., : self.base_move].contiguous()
            return out

    def select_prepared(
        self, inputs: dict[str, torch.Tensor], rows: torch.Tensor | None = None
    ) -> dict[str, torch.Tensor]:
        """The rows ``rows`` (default: all) of :meth:`prepare`'s inputs with their real candidates
        alone, one after another (no padding is copied): ``obs`` [R, O], and per candidate its
        row ``row`` [N] (in ``obs``), action ``act`` [N] and features ``feats`` [N, F] (and
        ``pooled`` [N, 3 * TILE_DIM] where :meth:`prepare` gave it)."""
        real = inputs["real"] if rows is None else inputs["real"].index_select(0, rows)
        row, col = real.nonzero(as_tuple=True)
        flat = (row if rows is None else rows[row]) * real.shape[1] + col  # index_select: the fastest copy
        obs = inputs["obs"] if rows is None else inputs["obs"].index_select(0, rows)
        out = {"obs": obs, "row": row, "act": inputs["idx"].flatten()[flat]}
        for key in ("feats", "pooled"):
            if key in inputs:
                out[key] = inputs[key].flatten(0, 1).index_select(0, flat)
        return out

    def forward_prepared(self, inputs: dict[str, torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
        """:meth:`forward` from :meth:`select_prepared`'s inputs: the same logits and values, with
        only the real candidates scored."""
        obs, row = inputs["obs"], inputs["row"]
        h = self.trunk(obs)
        s = self.score(inputs["feats"], self.state_in(h)[row], inputs.get("pooled"))
        out = torch.full((obs.shape[0], self.num_actions), -1e4, dtype=s.dtype, device=obs.device)
        return out.index_put((row, inputs["act"]), s), self.v(h).squeeze(-1)
