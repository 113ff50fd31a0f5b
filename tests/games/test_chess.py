"""Chess endgames of up to four men (``verifier.games.chess``): python-chess as the oracle of
the moves, hand-made positions, the KQK/KRK module as an independent implementation, the known
longest mates, symmetry, FEN names in files, answers and the command line."""

from __future__ import annotations

import numpy as np
import pytest
from chess_oracle import disagreements
from gamesolve import retrograde
from typer.testing import CliRunner

import verifier
from verifier.cli import app
from verifier.games import chess as vc
from verifier.games import chess_endgames as ce
from verifier.games.summary import class_sizes

pytest.importorskip("chess", reason="python-chess (the oracle) is a test dependency")
runner = CliRunner()


@pytest.fixture(scope="module")
def kpk() -> verifier.Case:
    return vc.generate("KPK")


def solved(case: verifier.Case) -> tuple[np.ndarray, np.ndarray]:
    """Labels and remoteness by the tests' own plain retrograde solver."""
    return retrograde(case.graph)


# ---------------------------------------------------------------- materials
def test_materials_parse_and_refuse() -> None:
    assert vc.material_name(vc.parse_material("kqkr")) == "KQKR"
    assert vc.parse_material("KQKR") == (1, 2, 9, 11)
    for bad, says in [
        ("QK", "starting with K"),
        ("KQ", "starting with K"),
        ("KXK", "unknown piece"),
        ("KQRKB", "at most 4"),
        ("KKK", "starting with K"),
    ]:
        with pytest.raises(ValueError, match=says):
            vc.parse_material(bad)


def test_tiers_are_every_material_a_capture_or_promotion_reaches() -> None:
    names = [vc.material_name(m) for m in vc.tiers("KRKP").materials]
    assert names[0] == "KRKP"
    # the pawn taken (KRK) or promoted (KRKQ ... KRKN), the rook taken (KKP, then its
    # promotions), and the bare kings
    expected = {"KRKP", "KRK", "KRKQ", "KRKR", "KRKB", "KRKN", "KKP", "KKQ", "KKR", "KKB", "KKN"}
    assert set(names) == expected | {"KK"} and len(names) == 12
    assert [vc.material_name(m) for m in vc.tiers("KQK").materials] == ["KQK", "KK"]


# ---------------------------------------------------------------- python-chess, the oracle
@pytest.mark.parametrize(
    "material",
    ["KPK", "KQKR", "KBNK", "KRKP", "KRKQ", "KRKR", "KRKB", "KRKN", "KKP", "KQKQ", "KBKB",
     "KNNK", "KBBK", "KNKP", "KQKP", "KK", "KPKP", "KPPK"],
)  # fmt: skip
def test_moves_mates_stalemates_equal_python_chess_sampled(material: str) -> None:
    seen, bad = disagreements(material, 1500, seed=7, every=3)
    assert seen == 1500
    assert bad == []


@pytest.mark.slow
def test_en_passant_equals_python_chess() -> None:
    """Positions where a pawn can be taken en passant (KPKP has 87,572 of them): the capture,
    and every other move, as python-chess's; 20,000 of them, each one's successors too."""
    seen, bad = disagreements("KPKP", 20_000, seed=5, en_passant=True)
    assert (seen, bad) == (20_000, [])


def ep_successors(fen: str) -> set[str]:
    """Our successors of a KPKP position by the move generator, as FENs (4 fields)."""
    from chess_oracle import ours

    code = vc._Namer(vc.tiers("KPKP"), np.zeros(0, np.uint64)).code_of(fen)
    assert code is not None, fen
    return ours("KPKP", code)[1]


def test_en_passant_by_hand() -> None:
    # b7-b5 beside the white pawn on c5: the en-passant square b6 is in the successor's FEN
    assert "8/8/8/1pP5/8/8/8/K6k w - b6" in ep_successors("8/1p6/8/2P5/8/8/8/K6k b - - 0 1")
    # and White takes on b6, the black pawn leaving the board: KPK
    after = ep_successors("8/8/8/1pP5/8/8/8/K6k w - b6 0 1")
    assert "8/8/1P6/8/8/8/8/K6k b - -" in after
    assert "8/8/1P6/8/8/8/8/K6k b - -" not in ep_successors("8/8/8/1pP5/8/8/8/K6k w - - 0 1")
    # a double step no pawn can answer leaves no en-passant square
    assert "8/8/8/1p6/8/8/2P5/K6k w - -" in ep_successors("8/1p6/8/8/8/8/2P5/K6k b - - 0 1")
    # an en-passant square no capture can use is the position without one (as in FEN)
    g = vc._Namer(vc.tiers("KPKP"), np.zeros(0, np.uint64))
    assert g.code_of("8/8/8/1p6/8/8/2P5/K6k w - b6 0 1") == g.code_of("8/8/8/1p6/8/8/2P5/K6k w")
    assert g.code_of("8/8/8/1pP5/8/8/8/K6k w - b6") != g.code_of("8/8/8/1pP5/8/8/8/K6k w - -")


@pytest.mark.slow
@pytest.mark.parametrize("material", ["KQKR", "KBNK", "KRKP", "KRKQ", "KRKR", "KRKB", "KRKN"])
def test_four_men_equal_python_chess_on_1e5_positions(material: str) -> None:
    seen, bad = disagreements(material, 100_000, seed=11, every=10)
    assert (seen, bad) == (100_000, [])


@pytest.mark.slow
@pytest.mark.parametrize(
    "material", ["KPK", "KQK", "KRK", "KBK", "KNK", "KKP", "KKQ", "KKR", "KKB", "KKN"]
)
def test_three_men_equal_python_chess_on_every_position(material: str) -> None:
    seen, bad = disagreements(material, None, every=10)
    assert seen > 100_000 and bad == []


# ---------------------------------------------------------------- hand-made positions
def successors(case: verifier.Case, fen: str) -> set[str]:
    g = case.graph
    return {g.name(int(y)) for y in g.successors(g.id_of(fen))}


def test_hand_made_positions(kpk: verifier.Case) -> None:
    kqk = vc.generate("KQK")
    lab, rem = solved(kqk)
    g = kqk.graph
    mate1 = g.id_of("k7/7Q/1K6/8/8/8/8/8 w - - 0 1")  # Qb7 (or Qa7) mates
    assert (lab[mate1], rem[mate1]) == (1, 1)
    assert "k7/1Q6/1K6/8/8/8/8/8 b - - 0 1" in successors(kqk, "k7/7Q/1K6/8/8/8/8/8 w - - 0 1")
    mated = g.id_of("k7/1Q6/1K6/8/8/8/8/8 b - - 0 1")
    assert g.out_degree[mated] == 0 and g.value[mated] == -1
    stalemate = g.id_of("k7/8/1Q6/8/8/8/8/7K b - - 0 1")
    assert g.out_degree[stalemate] == 0 and g.value[stalemate] == 0 and lab[stalemate] == 0
    # the black king takes an unguarded queen: bare kings, a drawn end
    assert "8/8/8/8/8/8/8/K1k5 w - - 0 1" in successors(kqk, "8/8/8/8/8/8/8/K1Qk4 b - - 0 1")
    bare = g.id_of("8/8/8/8/8/8/8/K1k5 w - - 0 1")
    assert g.out_degree[bare] == 0 and g.value[bare] == 0
    # promotion to each of the four pieces, and the pawn's double step
    promoted = successors(kpk, "8/P7/8/8/8/8/8/K6k w - - 0 1")
    for piece in "QRBN":
        assert f"{piece}7/8/8/8/8/8/8/K6k b - - 0 1" in promoted
    assert "8/8/8/8/4P3/8/8/K6k b - - 0 1" in successors(kpk, "8/8/8/8/8/8/4P3/K6k w - - 0 1")
    # a lone knight or bishop cannot mate: drawn ends whoever is to move
    kpk_g = kpk.graph
    for fen in ("8/8/8/8/8/8/8/KN5k b - - 0 1", "8/8/8/8/8/8/8/KB5k w - - 0 1"):
        x = kpk_g.id_of(fen)
        assert kpk_g.out_degree[x] == 0 and kpk_g.value[x] == 0


def test_any_fen_of_the_position_finds_it(kpk: verifier.Case) -> None:
    g = kpk.graph
    x = g.id_of("8/8/8/1k6/8/8/K5P1/8 w - - 0 1")
    assert g.id_of("8/8/8/1k6/8/8/K5P1/8 w - - 17 60") == x  # other counters
    assert g.id_of("8/8/8/1k6/8/8/K5P1/8 w") == x  # placement and side only
    for not_here in ("8/8/8/1k6/8/8/K5P1/8 w KQ - 0 1", "8/8/8/1k6/8/8/K5P1/7r w - - 0 1",
                     "8/8/8/1k6/8/8/K5P1 w - - 0 1", "8/8/8/1k6/8/8/K4P1/8 w", "nonsense",
                     "8/8/8/8/8/8/8/Kk6 w - - 0 1"):  # fmt: skip
        assert not g.has_node(not_here), not_here


# ---------------------------------------------------------------- independent implementation
@pytest.mark.slow  # 15 s each
@pytest.mark.parametrize("material", ["KQK", "KRK"])
def test_kqk_krk_equal_the_n_by_n_module_position_by_position(material: str) -> None:
    """``chess_endgames`` on 8x8 is written separately (its own move tables, captures into one
    node KK): every position's label and remoteness must be the same."""
    ours, theirs = vc.generate(material), ce.generate(material, 8)
    a_lab, a_rem = solved(ours)
    b_lab, b_rem = solved(theirs)
    tg = theirs.graph
    ids = [ours.graph.id_of(_fen(material[1], nm)) for nm in tg.names if nm != "KK"]
    kk = tg.id_of("KK")
    keep = np.arange(tg.n) != kk
    assert np.array_equal(a_lab[ids], b_lab[keep]) and np.array_equal(a_rem[ids], b_rem[keep])
    assert len(ids) == ours.graph.n - 7224  # the rest: the bare kings, 2 x 3612 positions


def _fen(piece: str, name: str) -> str:
    """``"Ka1 Qb2 kc4 w"`` as a FEN."""
    board = [["1"] * 8 for _ in range(8)]
    parts = name.split()
    for token, letter in zip(parts[:3], ("K", piece, "k"), strict=True):
        board[int(token[2]) - 1]["abcdefgh".index(token[1])] = letter
    rows = ["".join(r) for r in reversed(board)]
    for n in range(8, 1, -1):
        rows = [r.replace("1" * n, str(n)) for r in rows]
    return "/".join(rows) + f" {parts[3]} - - 0 1"


@pytest.mark.parametrize(
    ("material", "plies"),
    [("KQK", 19), ("KRK", 31), pytest.param("KPK", 55, marks=pytest.mark.slow)],
)
def test_longest_mates(material: str, plies: int) -> None:
    """Mate in 10 (KQK), 16 (KRK) and 28 (KPK) moves with White to move, the known maxima."""
    case = vc.generate(material)
    lab, rem = solved(case)
    wins = vc.longest_wins(case, lab, rem)
    assert wins["white"]["plies"] == plies and wins["white"]["mate_in"] == (plies + 1) // 2
    assert wins["black"] is None
    example = case.graph.id_of(wins["white"]["examples"][0])
    assert (lab[example], rem[example]) == (1, plies)


@pytest.mark.slow
@pytest.mark.parametrize(("material", "plies"), [("KQKR", 69), ("KBNK", 65)])
def test_longest_mates_of_four_men(material: str, plies: int) -> None:
    """KQKR mate in 35 and KBNK mate in 33 with White to move (the known maxima)."""
    case = vc.generate(material, symmetry=True)
    lab, rem = solved(case)
    wins = vc.longest_wins(case, lab, rem)
    assert wins["white"]["plies"] == plies
    black = wins["black"]
    assert black is None if material == "KBNK" else black["plies"] < plies


@pytest.mark.parametrize("material", ["KQK", pytest.param("KPK", marks=pytest.mark.slow)])
def test_symmetry_classes_keep_every_value(material: str) -> None:
    """The 8 symmetries (KQK) and the mirror with pawns (KPK, and 8 in its pawnless tiers)."""
    plain, sym = vc.generate(material), vc.generate(material, symmetry=True)
    sizes = class_sizes(sym)
    assert sizes is not None and int(sizes.sum()) == plain.graph.n
    lab, rem = solved(plain)
    s_lab, s_rem = solved(sym)
    weighted = vc.longest_wins(sym, s_lab, s_rem)["materials"]
    assert weighted == vc.longest_wins(plain, lab, rem)["materials"]  # every position counted
    rng = np.random.default_rng(3)
    for x in rng.choice(plain.graph.n, 3000, replace=False).tolist():
        c = sym.graph.id_of(plain.graph.name(x))  # any image's FEN finds its class
        assert (s_lab[c], s_rem[c]) == (lab[x], rem[x])


# ---------------------------------------------------------------- files, answers, CLI
def test_cli_generate_verify_query_and_answers_by_fen(tmp_path) -> None:
    out = tmp_path / "kqk.npz"
    r = runner.invoke(app, ["generate", "chess:KQK", "--symmetry", "-o", str(out)])
    assert r.exit_code == 0, r.output
    case = verifier.load(out)
    assert case.graph.names.codec == "chess:KQK:symmetric"
    sol = verifier.solve(case)
    fen = "k7/7Q/1K6/8/8/8/8/8 w - - 0 1"
    assert sol.value(fen) == "won" and sol[fen].remoteness == 1
    mirrored = "7k/Q7/6K1/8/8/8/8/8 w - - 0 1"  # the same class
    assert sol.value(mirrored) == "won"
    r = runner.invoke(app, ["query", str(out), mirrored, "--no-smt"])
    assert r.exit_code == 0 and "wins in 1 ply" in r.output, r.output
    # the game's own block of the summary (registry Facts), in the table and in --json
    r = runner.invoke(app, ["solve", str(out)])
    assert r.exit_code == 0, r.output
    assert "longest win, White to move: mate in 10 (19 plies)" in r.output, r.output
    r = runner.invoke(app, ["solve", str(out), "--json"])
    assert '"mate_in": 10' in r.output, r.output
    # a stranger's answer keyed by FEN: a mate in 1 claimed lost is refuted
    wrong = tmp_path / "wrong.csv"
    wrong.write_text(f"node,value\n{mirrored},lost\n")
    r = runner.invoke(app, ["verify", str(out), "--answers", str(wrong), "--linear", "-q"])
    assert r.exit_code == 1 and "REFUTED" in r.output, r.output
    right = tmp_path / "right.csv"
    right.write_text(f"node,value\n{mirrored},won\n")
    r = runner.invoke(app, ["verify", str(out), "--answers", str(right), "--linear", "-q"])
    assert r.exit_code == 0 and "VERIFIED" in r.output, r.output


def test_stored_codes_are_checked(tmp_path) -> None:
    from verifier.games import name_codecs

    case = vc.generate("KQK", symmetry=True)
    codes = np.array(case.graph.names.codes, copy=True)
    assert name_codecs.codec_names("chess:KQK:symmetric", codes)[5] == case.graph.name(5)
    for bad in (codes[[1, 0, *range(2, len(codes))]], np.append(codes, codes[-1:] + 1)):
        with pytest.raises(ValueError, match="no chess:KQK:symmetric position"):
            name_codecs.codec_names("chess:KQK:symmetric", bad)
    with pytest.raises(ValueError, match="unknown name codec"):
        name_codecs.codec_names("chess:KQK:mirror", codes)


def test_an_endgame_too_big_for_the_machine_is_refused_before_it_is_built(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The classes are counted, the memory foreseen, and the build refused in one line (on
    this machine KPKP with symmetry: 125,318,770 classes, about 15 GiB: docs/games.md)."""
    import verifier.io.limits as limits

    monkeypatch.setattr(limits, "memory_bytes", lambda: 50 << 20)
    with pytest.raises(
        ValueError,
        match=r"chess:KQK: 375,676 positions in 2 materials and about "
        r"6,010,816 moves need about 36 MiB to build, more than 30 MiB \(60% of",
    ):
        vc.generate("KQK")
    r = runner.invoke(app, ["generate", "chess:KQK", "-o", "kqk.npz"])
    assert r.exit_code == 2 and "--symmetry joins positions" in r.output


def test_cli_refuses_a_bad_material() -> None:
    r = runner.invoke(app, ["generate", "chess:KQRKB", "-o", "x.npz"])
    assert r.exit_code == 2 and "at most 4 men" in r.output
