"""Duplicate duels (issue 7, "Measuring strength"): ``games.bots.duel`` and ``manage.py bot_duel``.

Equal players must score exactly the baseline, because every deal is played once per seat
arrangement with the same cards and Hakem; these tests check that arrangement directly too.
"""

import doctest
import json
import math
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command

import games.bots.duel
from games.bots.duel import (
    PLAYERS,
    DuelConfig,
    DuelError,
    Progress,
    court_piece_deal,
    deal_hakem,
    format_progress,
    format_report,
    mean_interval,
    percentile,
    play_deal,
    play_match_set,
    run_duel,
    t95,
    timing_summary,
    wilson_interval,
)
from games.engine import (
    GAME_VARIANTS,
    HOKM4,
    VARIANTS,
    CourtPieceOptions,
    HiddenTrump,
    PlayCard,
    deal_deck,
    get_variant,
)
from tests.pure_imports import forbidden_imports

EXPECTED_SEATS = {
    "hokm4": [("a", "b", "a", "b"), ("b", "a", "b", "a")],
    "hokm3": [("a", "b", "b"), ("b", "a", "b"), ("b", "b", "a")],
    "hokm2": [("a", "b"), ("b", "a")],
    "hokm2-draw": [("a", "b"), ("b", "a")],
    "court-piece": [("a", "b", "a", "b"), ("b", "a", "b", "a")],
}


def patch_bot(monkeypatch: pytest.MonkeyPatch, variant: str, replacement: Any) -> None:
    """Replace the duel's ``bot_action`` once this process is warmed up for ``variant`` (the
    untimed warm-up decisions would otherwise go to the replacement too, in the first test only)."""
    for level in ("greedy", "medium"):
        games.bots.duel.warm_up(variant, level)
    monkeypatch.setattr(games.bots.duel, "bot_action", replacement)


def without_timing(report: dict[str, Any]) -> dict[str, Any]:
    """The parts of a report that must not change between runs (timings and jobs may)."""
    kept = {key: value for key, value in report.items() if key not in {"elapsed_s", "jobs"}}
    kept["timing"] = {side: timing["decisions"] for side, timing in report["timing"].items()}
    return kept


def test_every_variant_has_its_arrangements() -> None:
    assert set(EXPECTED_SEATS) == set(GAME_VARIANTS)


@pytest.mark.parametrize("variant", sorted(GAME_VARIANTS))
def test_equal_players_score_exactly_the_baseline(variant: str) -> None:
    """Greedy against greedy: each deal's games are the same game with the players' names
    swapped, so A wins exactly one game per deal (1/2, or 1/3 in hokm3 where A plays alone
    against two, R1.4)."""
    result = run_duel(DuelConfig(a="greedy", b="greedy", variant=variant, pairs=12, matches=1))
    hands = result.report["hands"]
    baseline = 1 / 3 if variant == "hokm3" else 1 / 2
    assert result.report["baseline"] == pytest.approx(baseline)
    assert all(deal.a_score == pytest.approx(baseline) for deal in result.deals)
    assert hands["a_win_rate"] == pytest.approx(baseline)
    assert hands["ci95"] == pytest.approx([baseline, baseline])
    assert hands["hands"] == 12 * len(EXPECTED_SEATS[variant])
    assert hands["above_baseline"] is False
    assert result.report["matches"]["a_win_rate"] == pytest.approx(baseline)
    if variant == "court-piece":  # every court made in one arrangement is suffered in the other
        courts = hands["courts"]
        assert courts["a"]["courts"] == courts["b"]["courts"]
        assert courts["a"]["court_rate"] == pytest.approx(courts["b"]["court_rate"])
        return
    # Every Kot made in one arrangement is suffered in the other.
    assert hands["kot"]["a_kots"] * (len(EXPECTED_SEATS[variant]) - 1) == hands["kot"]["b_kots"]


def test_greedy_clearly_beats_random_play() -> None:
    report = run_duel(DuelConfig(a="random", b="greedy", variant="hokm4", pairs=40)).report
    hands = report["hands"]
    assert hands["a_win_rate"] < 0.35
    assert hands["ci95"][1] < 0.5
    assert hands["points_per_hand"]["b"] > hands["points_per_hand"]["a"]


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_a_deal_is_replayed_with_the_same_cards_and_hakem_and_swapped_seats(
    variant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    decided: list[tuple[int, str]] = []
    real = games.bots.duel.bot_action

    def spy(view: dict[str, Any], *, level: str, match: Any = None) -> Any:
        decided.append((view["seat"], level))
        return real(view, level=level, match=match)

    patch_bot(monkeypatch, variant, spy)
    config = DuelConfig(a="medium", b="greedy", variant=variant, pairs=1, seed=4242)
    outcome = play_deal(config, 0)

    engine_variant = get_variant(variant)
    deck = tuple(card.text for card in deal_deck(engine_variant, 4242))
    assert [game.seats for game in outcome.games] == EXPECTED_SEATS[variant]
    assert all(game.deck == deck for game in outcome.games)
    assert {game.hakem for game in outcome.games} == {deal_hakem(engine_variant, 4242)}
    # Each seat was played by the level the arrangement puts there, and by nobody else.
    levels = {"a": "medium", "b": "greedy"}
    by_seat: dict[int, set[str]] = {}
    for seat, level in decided:
        by_seat.setdefault(seat, set()).add(level)
    expected: dict[int, set[str]] = {}
    for seats in EXPECTED_SEATS[variant]:
        for seat, player in enumerate(seats):
            expected.setdefault(seat, set()).add(levels[player])
    assert by_seat == expected
    assert len(decided) == len(outcome.times_a) + len(outcome.times_b)


def test_a_duel_in_hokm4_gives_the_hakem_to_each_team_once() -> None:
    outcome = play_deal(DuelConfig(a="greedy", b="greedy", pairs=1, seed=7), 0)
    hakem = outcome.games[0].hakem
    assert [game.seats[hakem] for game in outcome.games] in (["a", "b"], ["b", "a"])


def test_deals_use_consecutive_seeds() -> None:
    config = DuelConfig(a="greedy", b="greedy", pairs=3, seed=500)
    result = run_duel(config)
    assert [deal.seed for deal in result.deals] == [500, 501, 502]
    decks = {deal.games[0].deck for deal in result.deals}
    assert len(decks) == 3


def test_hands_alone_pass_a_fresh_match_and_matches_pass_the_real_scores(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    facts: list[dict[str, Any]] = []
    real = games.bots.duel.bot_action

    def spy(view: dict[str, Any], *, level: str, match: Any = None) -> Any:
        facts.append(match)
        return real(view, level=level, match=match)

    patch_bot(monkeypatch, "hokm4", spy)
    config = DuelConfig(a="greedy", b="greedy", pairs=1, matches=1, target=3)
    play_deal(config, 0)
    assert facts and all(fact == {"scores": [0, 0], "target": 3} for fact in facts)

    facts.clear()
    outcome = play_match_set(config, 0)
    assert all(fact["target"] == 3 for fact in facts)
    assert any(sum(fact["scores"]) > 0 for fact in facts)
    for game in outcome.games:
        assert max(game.scores) >= 3 and game.scores[game.winner] == max(game.scores)
    # The same match with the teams swapped: equal players, so each team wins one.
    assert sorted(game.a_won for game in outcome.games) == [False, True]


def test_the_report_has_every_field() -> None:
    report = run_duel(DuelConfig(a="random", b="greedy", pairs=4, matches=1)).report
    assert set(report) >= {"a", "b", "variant", "seed", "pairs", "baseline", "hands", "matches"}
    assert set(report["hands"]) >= {"hands", "a_win_rate", "ci95", "wilson95", "stderr", "kot"}
    assert set(report["hands"]["kot"]) >= {
        "a_kot_share_of_wins",
        "a_kot_rate",
        "b_kot_rate",
        "a_hakem_kot_rate",
        "b_hakem_kot_rate",
    }
    assert set(report["hands"]["points_per_hand"]) == {"a", "b"}
    assert set(report["matches"]) >= {"played", "a_win_rate", "ci95", "wilson95", "target"}
    for side in ("a", "b"):
        assert set(report["timing"][side]) >= {"decisions", "median_ms", "p95_ms", "max_ms"}
        assert report["timing"][side]["decisions"] > 0
    assert json.loads(json.dumps(report)) == report
    text = format_report(report)
    assert "A hand win rate" in text and "A match win rate" in text and "p95" in text


def test_matches_alone_report_no_hands() -> None:
    report = run_duel(DuelConfig(a="greedy", b="greedy", pairs=0, matches=1)).report
    assert report["hands"] is None
    assert report["matches"]["played"] == 2
    assert "A match win rate" in format_report(report)


def test_the_same_seeds_give_the_same_results_with_one_or_two_jobs() -> None:
    config = DuelConfig(a="random", b="greedy", variant="hokm2-draw", pairs=10, matches=1)
    seen: list[Progress] = []
    one = run_duel(config)
    again = run_duel(config)
    two = run_duel(DuelConfig(**{**_fields(config), "jobs": 2}), progress=seen.append)
    assert one.deals[0].games == again.deals[0].games
    assert without_timing(one.report) == without_timing(again.report)
    assert without_timing(one.report) == without_timing(two.report)
    assert [deal.games for deal in one.deals] == [deal.games for deal in two.deals]
    assert [game.games for game in one.matches] == [game.games for game in two.matches]
    assert seen[-1].phase == "matches" and seen[-1].done == 1
    assert max(p.done for p in seen if p.phase == "deals") == 10


def _fields(config: DuelConfig) -> dict[str, Any]:
    return {name: getattr(config, name) for name in DuelConfig.__slots__}


def test_a_bot_error_names_the_deal(monkeypatch: pytest.MonkeyPatch) -> None:
    def cheat(view: dict[str, Any], *, level: str, match: Any = None) -> Any:
        return PlayCard(view["seat"], HOKM4.deck[0])  # not even the call: illegal

    patch_bot(monkeypatch, "hokm4", cheat)
    with pytest.raises(DuelError, match="deal seed 100000"):
        play_deal(DuelConfig(a="greedy", b="greedy", pairs=1), 0)


@pytest.mark.parametrize(
    "fields",
    [
        {"a": "grandmaster"},
        {"variant": "hokm5"},
        {"pairs": 0},
        {"pairs": -1, "matches": 3},
        {"jobs": 0},
        {"target": 0},
    ],
)
def test_a_bad_config_is_refused(fields: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        DuelConfig(**{"a": "greedy", "b": "greedy", **fields})


def test_every_level_can_play() -> None:
    assert set(PLAYERS) == {"random", "greedy", "easy", "medium", "hard", "expert"}


# Court Piece (R9) -----------------------------------------------------------------------------

DOUBLE_SIR_CHOSEN = CourtPieceOptions(double_sir=True, hidden_trump=HiddenTrump.CHOSEN)


def test_a_court_piece_deal_is_replayed_with_the_same_cards_dealer_and_options_R9(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    decided: list[tuple[int, str, dict[str, Any]]] = []
    real = games.bots.duel.bot_action

    def spy(view: dict[str, Any], *, level: str, match: Any = None) -> Any:
        decided.append((view["seat"], level, view["options"]))
        return real(view, level=level, match=match)

    patch_bot(monkeypatch, "court-piece", spy)
    config = DuelConfig(
        a="medium", b="greedy", variant="court-piece", pairs=1, seed=77, options=DOUBLE_SIR_CHOSEN
    )
    outcome = play_deal(config, 0)
    first = court_piece_deal(DOUBLE_SIR_CHOSEN, 77)
    assert [game.seats for game in outcome.games] == EXPECTED_SEATS["court-piece"]
    assert {game.deck for game in outcome.games} == {tuple(c.text for c in first.deck)}
    assert {game.hakem for game in outcome.games} == {first.caller}
    assert {json.dumps(options) for _, _, options in decided} == {
        json.dumps(DOUBLE_SIR_CHOSEN.to_json())
    }
    by_seat: dict[int, set[str]] = {}
    for seat, level, _ in decided:
        by_seat.setdefault(seat, set()).add(level)
    assert by_seat == {seat: {"medium", "greedy"} for seat in range(4)}


def test_court_piece_deals_alone_pass_a_fresh_match_and_matches_the_real_facts_R9_8(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    facts: list[dict[str, Any]] = []
    real = games.bots.duel.bot_action

    def spy(view: dict[str, Any], *, level: str, match: Any = None) -> Any:
        facts.append(match)
        return real(view, level=level, match=match)

    patch_bot(monkeypatch, "court-piece", spy)
    config = DuelConfig(a="greedy", b="greedy", variant="court-piece", pairs=1, matches=1)
    assert config.match_target == 1  # R9.10.1
    play_deal(config, 0)
    fresh = {"scores": [0, 0], "target": 1, "streak": {"side": None, "count": 0}}
    assert facts and all(fact == {**fresh, "max_deals": None} for fact in facts)
    facts.clear()
    outcome = play_match_set(config, 0)
    assert all(set(fact) == {"scores", "target", "streak", "max_deals"} for fact in facts)
    assert any(fact["streak"]["count"] for fact in facts) or outcome.games[0].hands == 1
    for game in outcome.games:
        assert game.scores[game.winner] >= 1
    assert sorted(game.a_won for game in outcome.games) == [False, True]


def test_a_court_piece_duel_reports_deals_and_courts_with_intervals_R9_7() -> None:
    config = DuelConfig(
        a="random", b="greedy", variant="court-piece", pairs=12, options=CourtPieceOptions()
    )
    report = run_duel(config).report
    assert report["options"] == CourtPieceOptions().to_json()
    hands = report["hands"]
    assert "kot" not in hands and hands["hands"] == 24
    for player in ("a", "b"):
        courts = hands["courts"][player]
        assert set(courts) >= {"courts", "court_rate", "ci95", "wilson95", "goon_courts"}
        assert courts["fifty_two_courts"] <= courts["courts"]
    assert json.loads(json.dumps(report)) == report
    text = format_report(report)
    assert "court-piece (double_sir=false" in text
    assert "A deal win rate" in text and "courts made by A" in text and "Kot" not in text


def test_court_piece_options_are_refused_for_hokm_and_checked() -> None:
    with pytest.raises(ValueError, match="Court Piece"):
        DuelConfig(a="greedy", b="greedy", variant="hokm4", options=CourtPieceOptions())
    with pytest.raises(ValueError, match="ace_rule"):
        DuelConfig(
            a="greedy",
            b="greedy",
            variant="court-piece",
            options=CourtPieceOptions.from_json({"ace_rule": True}),
        )


def test_command_takes_the_court_piece_options() -> None:
    out = StringIO()
    call_command(
        "bot_duel",
        *("--a", "easy", "--b", "greedy", "--variant", "court-piece", "--pairs", "3"),
        *("--option", "double_sir=true", "--option", "hidden_trump=chosen"),
        *("--option", "ace_caller=S", "--matches", "1", "--json"),
        stdout=out,
        stderr=StringIO(),
    )
    report = json.loads(out.getvalue())
    assert report["variant"] == "court-piece"
    assert report["options"] == {
        **CourtPieceOptions().to_json(),
        "double_sir": True,
        "hidden_trump": "chosen",
        "ace_caller": "S",
    }
    assert report["matches"]["target"] == 1 and report["hands"]["hands"] == 6


@pytest.mark.parametrize(
    "arguments, message",
    [
        (("--variant", "hokm4", "--option", "double_sir=true"), "Court Piece's table"),
        (("--variant", "court-piece", "--option", "double_sir"), "NAME=VALUE"),
        (("--variant", "court-piece", "--option", "hidden_trump=sometimes"), "hidden_trump"),
        (("--variant", "court-piece", "--option", "jokers=true"), "unknown setting"),
    ],
)
def test_command_refuses_bad_options(arguments: tuple[str, ...], message: str) -> None:
    with pytest.raises(CommandError, match=message):
        call_command("bot_duel", *arguments, "--pairs", "1", stdout=StringIO(), stderr=StringIO())


# Statistics -----------------------------------------------------------------------------------


def test_mean_interval_uses_the_deal_as_the_unit() -> None:
    scores = [1.0, 0.5, 0.5, 0.0, 1.0, 0.5, 1.0, 0.5]
    interval = mean_interval(scores)
    stderr = 0.3535533905932738 / math.sqrt(8)  # sample standard deviation / sqrt(n)
    assert interval["mean"] == pytest.approx(0.625)
    assert interval["stderr"] == pytest.approx(stderr)
    assert interval["ci95"] == pytest.approx([0.625 - 2.365 * stderr, 0.625 + 2.365 * stderr])
    assert mean_interval([0.5]) == {"mean": 0.5, "stderr": None, "ci95": None}
    assert mean_interval([1.0] * 5 + [0.5])["ci95"][1] == 1.0  # clipped to a rate


def test_t95_joins_the_table_to_the_normal_quantile() -> None:
    assert t95(1) == 12.706
    assert t95(30) == 2.042
    assert t95(60) == pytest.approx(2.000, abs=1e-3)
    assert t95(120) == pytest.approx(1.980, abs=1e-3)
    assert t95(10**6) == pytest.approx(1.96, abs=1e-3)


def test_wilson_interval_stays_open_when_every_deal_scores_alike() -> None:
    assert wilson_interval(0, 10) == pytest.approx([0.0, 0.2775], abs=1e-4)
    assert wilson_interval(5, 10) == pytest.approx([0.2366, 0.7634], abs=1e-4)
    assert wilson_interval(0, 0) is None
    assert mean_interval([0.0] * 10)["ci95"] == [0.0, 0.0]


def test_percentile_and_timing_summary() -> None:
    values = sorted(i / 1000 for i in range(1, 101))  # 1 ms to 100 ms
    assert percentile(values, 0.95) == pytest.approx(0.095)
    summary = timing_summary("expert", values)
    assert summary["decisions"] == 100
    assert summary["median_ms"] == pytest.approx(50.5)
    assert summary["p95_ms"] == pytest.approx(95)
    assert summary["max_ms"] == pytest.approx(100)
    assert timing_summary("greedy", [])["median_ms"] is None


def test_progress_line() -> None:
    line = format_progress(Progress("deals", 100, 400, 130, 200, elapsed=60))
    assert line == "deals 100/400  A 65.0%  elapsed 1:00  ETA 3:00"


# The command ----------------------------------------------------------------------------------


def test_command_shows_progress_and_prints_the_table() -> None:
    out, err = StringIO(), StringIO()
    call_command(
        "bot_duel", "--a", "random", "--b", "greedy", "--pairs", "3", stdout=out, stderr=err
    )
    assert "deals 3/3" in err.getvalue()
    text = out.getvalue()
    assert "random (A) against greedy (B), hokm4" in text
    assert "A hand win rate" in text and "95% CI" in text and "time per decision" in text


def test_command_json_output() -> None:
    out = StringIO()
    call_command(
        "bot_duel",
        *("--a", "greedy", "--b", "greedy", "--variant", "hokm3", "--pairs", "2"),
        *("--matches", "1", "--target", "2", "--seed", "9", "--json"),
        stdout=out,
        stderr=StringIO(),
    )
    report = json.loads(out.getvalue())
    assert report["variant"] == "hokm3" and report["seed"] == 9
    assert report["hands"]["a_win_rate"] == pytest.approx(1 / 3)
    assert report["matches"]["target"] == 2 and report["matches"]["played"] == 3


def test_command_refuses_an_empty_duel() -> None:
    with pytest.raises(CommandError, match="at least one deal"):
        call_command("bot_duel", "--pairs", "0", stdout=StringIO(), stderr=StringIO())


# Purity and examples ----------------------------------------------------------------------------


def test_the_duel_module_imports_no_django() -> None:
    path = Path(games.bots.duel.__file__)
    assert forbidden_imports(path.read_text(encoding="utf-8"), str(path)) == []


def test_docstring_examples() -> None:
    assert doctest.testmod(games.bots.duel).failed == 0
