"""The conventions a policy declares (`provgraph.schemas.conventions`): templates, names,
places and metric spellings, and their form in the policy history."""

from __future__ import annotations

import pytest

from provgraph.schemas.conventions import (
    FACTS,
    NO_CONVENTIONS,
    Conventions,
    NamedKind,
    alias_problem,
    canonical_metric,
    metric_key,
    missing_facts,
    name_problem,
    place_problem,
    render,
    template_problem,
    under,
)

RUN = {"project": "p", "experiment": "sft", "run_number": "3", "run_id": "p-3", "commit": None}


@pytest.mark.parametrize(
    ("template", "problem"),
    [
        ("{experiment}-r{run_number}", None),
        ("run-*", None),
        ("{owner}-x", "{owner} is not a fact of a run"),
        ("{experiment", "unbalanced braces"),
        ("x}", "unbalanced braces"),
        ("", "1 to 256 characters"),
        ("x" * 257, "1 to 256 characters"),
    ],
)
def test_a_template_names_only_the_kinds_facts(template: str, problem: str | None) -> None:
    found = template_problem(NamedKind.RUN, template)
    assert (found is None) if problem is None else (found is not None and problem in found)


def test_each_kind_has_its_own_facts() -> None:
    assert template_problem(NamedKind.MODEL_VERSION, "{model}-{date}") is None
    assert "not a fact of a model_version" in str(
        template_problem(NamedKind.MODEL_VERSION, "{run_number}")
    )
    assert set(FACTS) == set(NamedKind)
    assert all("project" in facts and "date" in facts for facts in FACTS.values())


def test_a_name_follows_its_rule_or_says_why_not() -> None:
    rule = "{experiment}-r{run_number}"
    assert name_problem(rule, "sft-r3", RUN) is None
    assert "does not follow" in str(name_problem(rule, "sft-3", RUN))
    assert "no name given" in str(name_problem(rule, None, RUN))
    assert "lacks" in str(name_problem("{commit}", "abc", RUN))
    assert render(rule, RUN) == "sft-r3"
    assert render("{commit}-x", RUN) is None and missing_facts("{commit}-x", RUN) == ["commit"]
    assert render("run-*", RUN) is None  # a wildcard builds no name


def test_wildcards_match_any_text_and_the_rest_is_literal() -> None:
    assert name_problem("registry.example/*:*", "registry.example/train:1.2", {}) is None
    assert name_problem("registry.example/*:*", "registryXexample/train:1.2", {}) is not None
    assert name_problem("v*", "v", {}) is not None  # * is at least one character
    assert name_problem("{experiment}.*", "sft.r1", RUN) is None


def test_places() -> None:
    roots = ["s3://bucket/a", "gs://other/"]
    assert place_problem("s3://bucket/a/ckpt/1", roots) is None
    assert place_problem("gs://other/x", roots) is None
    assert "outside" in str(place_problem("s3://bucket/ab/x", roots))  # a whole segment
    assert "personal" in str(place_problem("file:///home/ann/x", roots))
    assert "personal" in str(place_problem("file:///tmp/x", []))
    assert place_problem("file:///data/x", []) is None  # no roots: anything but personal
    assert under("s3://b/a", "s3://b/a/") and not under("s3://b/ab", "s3://b/a")


@pytest.mark.parametrize(
    "name", ["val/loss", "validation/loss", "val_loss", "Val-Loss", "valid.loss", "VAL LOSS"]
)
def test_spellings_of_one_metric_share_a_key(name: str) -> None:
    assert metric_key(name) == "val/loss"


def test_other_metrics_keep_their_keys() -> None:
    assert metric_key("train/loss") != metric_key("val/loss")
    assert metric_key("eval/acc") == metric_key("evaluation_acc")


def test_aliases() -> None:
    assert canonical_metric("val_loss", {"val_loss": "val/loss"}) == "val/loss"
    assert canonical_metric("lr", {"val_loss": "val/loss"}) == "lr"
    assert alias_problem({"val_loss": "val/loss"}) is None
    assert "alias of itself" in str(alias_problem({"a": "a"}))
    assert "itself an alias" in str(alias_problem({"a": "b", "b": "c"}))
    assert "at most" in str(alias_problem({f"m{i}": "x" for i in range(1000)}))


def test_the_stored_form_round_trips_and_leaves_out_what_is_not_stated() -> None:
    conventions = Conventions({"val_loss": "val/loss"}, {"run": "r-*"}, True, ("s3://b",), True)
    assert Conventions.from_stored(conventions.stored()) == conventions
    assert NO_CONVENTIONS.stored() == {}
    assert Conventions.from_stored({"names": "not a map", "storage_roots": "x"}) == NO_CONVENTIONS
    assert conventions.template(NamedKind.RUN) == "r-*"
    assert conventions.template(NamedKind.IMAGE) is None
