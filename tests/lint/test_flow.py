"""Reaching assignments over the language-neutral flow nodes (`rmqlint.flow`)."""

from __future__ import annotations

import pytest

from rmqlint.flow import Assign, Branch, Jump, Loop, Seq, Switch, Try, Unsupported, Use, reaching, reaching_each


def values(program) -> list:
    at_use, _end = reaching(program)
    return [a.value for a in at_use]


def a(value, order=[0]):  # noqa: B006 - a counter for source order
    order[0] += 1
    return Assign(value, order[0])


def test_the_last_assignment_on_a_straight_path_wins():
    assert values(Seq([a("x"), a("y"), Use()])) == ["y"]


def test_if_else_gives_one_of_the_branches_and_a_missing_else_keeps_the_earlier_value():
    assert values(Seq([a("default"), Branch([a("A"), a("B")]), Use()])) == ["A", "B"]
    assert values(Seq([a("default"), Branch([a("A"), Seq()]), Use()])) == ["default", "A"]


def test_a_branch_that_returns_does_not_reach_the_use():
    assert values(Seq([a("x"), Branch([Seq([a("y"), Jump("return")]), Seq()]), Use()])) == ["x"]


def test_a_declaration_without_value_reaches_nothing():
    assert values(Seq([a("x"), a(None), Branch([a("A"), a("B")]), Use()])) == ["A", "B"]


def test_switch_with_fall_through_and_break():
    program = Seq([a(None), Switch([Seq([a("one")]),  # falls through into the next group
                                   Seq([a("two"), Jump("break")]),
                                   Seq([a("other"), Jump("break")])], fallthrough=True, exhaustive=True), Use()])
    assert values(program) == ["two", "other"]


def test_switch_without_default_may_run_no_group():
    program = Seq([a("none"), Switch([Seq([a("one")]), Seq([a("two")])], fallthrough=False, exhaustive=False),
                   Use()])
    assert values(program) == ["none", "one", "two"]


def test_loops_carry_later_assignments_back_to_the_top():
    first, second = a("first"), a("second")
    program = Seq([first, Loop(body=Seq([Use(), second]))])
    assert values(program) == ["first", "second"]
    at_use, end = reaching(Seq([a("x"), Loop(body=Seq([a("y"), Jump("break")]))]))
    assert at_use == [] and [e.value for e in end] == ["x", "y"]


def test_do_while_runs_its_body_once_at_least():
    _at_use, end = reaching(Seq([a("x"), Loop(body=a("y"), body_first=True)]))
    assert [e.value for e in end] == ["y"]


def test_python_loop_else_runs_only_when_the_loop_ends_without_break():
    program = Seq([a("x"), Loop(body=Branch([Seq([a("found"), Jump("break")]), Seq()]), orelse=a("missing")), Use()])
    assert values(program) == ["found", "missing"]


def test_try_handlers_start_from_any_state_of_the_body():
    program = Seq([a("x"), Try(Seq([a("y"), a("z")]), handlers=[Seq([Use()])])])
    assert values(program) == ["x", "y", "z"]
    assert values(Seq([a("x"), Try(Seq([a("y")]), handlers=[a("failed")]), Use()])) == ["y", "failed"]


def test_jumps_outside_a_loop_are_not_modelled():
    with pytest.raises(Unsupported):
        reaching(Seq([Jump("break")]))


def test_several_reads_answered_in_one_pass():
    """Each `Use` of a program gets the assignments that reach it (a loop's read sees the value of the round before
    too); a `Use` no path reaches is left out."""
    first, in_loop, after, dead = Use(), Use(), Use(), Use()
    program = Seq([a("x"), first, Loop(body=Seq([in_loop, a("y")])), after, Jump("return"), dead])
    answers = {use: [assign.value for assign in assigns] for use, assigns in reaching_each(program).items()}
    assert answers == {first: ["x"], in_loop: ["x", "y"], after: ["x", "y"]}
