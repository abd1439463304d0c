"""The ComplianceReads contract: one graph, one set of expected answers, every adapter held to
them.

`ComplianceReadsContract` runs against the in-memory `FakeComplianceReads`
(tests/unit/query/test_compliance_reads_contract_fake.py) and `ComplianceReader` over the real
Neo4j (tests/integration/query/test_compliance_reads_contract_neo4j.py). Both load
`ComplianceGraph`, the events of two projects folded by the projector's writers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from support.contract_graphs_team import TwoProjects, Who, instant

from provgraph.query.read.compliance_reads import (
    COMPLIANCE_DEPTH,
    ComplianceReads,
    ModelData,
)
from provgraph.query.read.model import Scope
from provgraph.schemas.ids import checkpoint_id, dataset_version_id, model_version_id, run_id

ANN: Who = ("user:ann", "user:ann")
TAKEDOWN = "takedown request from the publisher"
LONG = 3 * COMPLIANCE_DEPTH  # a derivation chain several times the bound
Answer = list[tuple[str, int, bool, dict[str, Any]]]
"""(dataset version id, depth, made_from, source) of each version answered."""


def answered(found: ModelData | None) -> Answer | None:
    if found is None:
        return None
    return [(d.node.id, d.depth, d.made_from, dict(d.source)) for d in found.data]


def source(uri: str, obtained_by: str, **terms: str) -> dict[str, str]:
    return {"uri": uri, "obtained_by": obtained_by, **terms}


LICENSED = source("https://a.test/books/", "purchase", licence="CC-BY-4.0",
                  compliance_note="attribution in the model card")  # fmt: skip
NO_NOTE = source("https://b.test/news/", "crawl", licence="ODC-BY")
SCRAPED = source("https://c.test/forum/", "scrape")
WARM = source("https://d.test/code/", "mirror", licence="MIT", compliance_note="licence kept")
SHARED = source("https://e.test/shared/", "partner feed", licence="proprietary",
                compliance_note="contract 42")  # fmt: skip


@dataclass
class ComplianceGraph(TwoProjects):
    """Project a: `base@1`, trained (run base-train) on `mixed v1` (derived from `books v1`,
    licensed with a note, and `news v1`, licensed without) with `bare v1` (no source) for
    validation, exported from that run's checkpoint; `ft@1`, fine-tuned from base@1 (run ft) on
    `forum v1` (scraped, no licence, later taken down) and b's `shared v1`, resumed from the
    checkpoint of run warm (trained on `code v1`) and exported from its own checkpoint;
    `long@1`, trained on the end of a derivation chain of LONG versions; `fits@1`, on a chain
    that ends exactly at the bound. Project b: `shared v1`, derived from a's `hidden v1`."""

    def __post_init__(self) -> None:
        a, b = self.a, self.b
        for name, src in (("books", LICENSED), ("news", NO_NOTE), ("forum", SCRAPED),
                          ("code", WARM), ("bare", None)):  # fmt: skip
            self.version(a, name, src)
        self.version(a, "hidden", source("https://f.test/", "export"))
        self.version(a, "mixed", None, derived_from=("books", "news"))
        self.version(b, "shared", SHARED, derived_from=(self.ds("hidden"),))
        self.train(a, "base-train", [("mixed", "train"), ("bare", "validation")])
        self.register(a, "base", "base-train", exported=True)
        self.train(a, "warm", [("code", "train")])
        self.train(a, "ft", [("forum", "train"), (self.ds("shared", b), "train")],
                   base_model=self.model("base"))  # fmt: skip
        self.add(a, "run.resumed", run_id=f"{a}-ft", from_checkpoint=self.ckpt("warm"),
                 interruption_cause="preempted", steps_lost=0, resumed_at_step=10)  # fmt: skip
        self.register(a, "ft", "ft", exported=True)
        self.add(a, "entity.deleted", entity=self.ds("forum"), reason=TAKEDOWN)
        self.chain(a, "long", LONG)
        self.chain(a, "fits", COMPLIANCE_DEPTH - 2)  # its run at 1, the run's input at 2

    def ds(self, name: str, project: str | None = None) -> str:
        return dataset_version_id(project or self.a, name, "v1")

    def model(self, name: str) -> str:
        return model_version_id(self.a, name, "1")

    def ckpt(self, run: str) -> str:
        return checkpoint_id(f"{self.a}-{run}", 10)

    def add(self, project: str, kind: str, /, **payload: Any) -> None:
        self.log.add(project, ANN, instant("2026-03-02T10:00"), kind, **payload)

    def version(
        self,
        project: str,
        name: str,
        src: dict[str, str] | None,
        derived_from: tuple[str, ...] = (),
    ) -> None:
        parents = [p if ":" in p else self.ds(p, project) for p in derived_from]
        made = [{"dataset_version": p, "transform": "mix"} for p in parents]
        uri = f"s3://{project}/{name}/v1/"
        self.add(project, "dataset.version.created", name=name, version="v1", storage_uri=uri,
                 source=src, derived_from=made)  # fmt: skip

    def train(self, project: str, run: str, inputs: list[tuple[str, str]], **more: Any) -> None:
        used = [{"dataset_version": d if ":" in d else self.ds(d, project), "role": role}
                for d, role in inputs]  # fmt: skip
        self.add(project, "run.started", run_id=f"{project}-{run}", inputs=used, **more)
        self.add(project, "checkpoint.saved", run_id=f"{project}-{run}", step=10,
                 uri=f"s3://{project}/ckpt/{run}/10/")  # fmt: skip

    def register(self, project: str, name: str, run: str, *, exported: bool = False) -> None:
        self.add(project, "model.version.registered", name=name, version="1",
                 produced_by_run=run_id(f"{project}-{run}"),
                 checkpoint=self.ckpt(run) if exported else None)  # fmt: skip

    def chain(self, project: str, name: str, length: int) -> None:
        """`name-0 v1` <- `name-1 v1` <- ... <- `name-<length> v1`, the last one trained on."""
        self.version(project, f"{name}-0", SCRAPED)
        for i in range(1, length + 1):
            self.version(project, f"{name}-{i}", None, derived_from=(f"{name}-{i - 1}",))
        self.train(project, f"{name}-train", [(f"{name}-{length}", "train")])
        self.register(project, name, f"{name}-train")


class ComplianceReadsContract:
    """What every ComplianceReads adapter answers on the contract graph. Subclasses provide
    `graph` (loaded into the adapter under test) and `reads` (the adapter)."""

    @pytest.fixture()
    def graph(self) -> ComplianceGraph:
        raise NotImplementedError("each adapter's test class loads the contract graph")

    @pytest.fixture()
    def reads(self, graph: ComplianceGraph) -> ComplianceReads:
        raise NotImplementedError("each adapter's test class provides its reads")

    def test_every_version_upstream_through_runs_bases_resumes_and_derivations(
        self, reads: ComplianceReads, graph: ComplianceGraph
    ) -> None:
        only_a, both = graph.scopes()
        ds = graph.ds
        # ft@1 -> run ft -> its inputs (2); -> base@1 (2) -> base-train (3) -> mixed, bare (4)
        # -> books, news (5); run ft -> warm's checkpoint (2) -> run warm (3) -> code (4).
        mine: Answer = sorted([
            (ds("forum"), 2, False, SCRAPED),
            (ds("mixed"), 4, True, {}),
            (ds("bare"), 4, False, {}),
            (ds("code"), 4, False, WARM),
            (ds("books"), 5, False, LICENSED),
            (ds("news"), 5, False, NO_NOTE),
        ])  # fmt: skip
        assert answered(reads.model_data(graph.model("ft"), only_a)) == mine
        theirs = [(ds("shared", graph.b), 2, True, SHARED), (ds("hidden"), 3, False, {
            "uri": "https://f.test/", "obtained_by": "export"})]  # fmt: skip
        assert answered(reads.model_data(graph.model("ft"), both)) == sorted(mine + theirs)
        base = answered(reads.model_data(graph.model("base"), only_a))
        assert base == [(i, d - 2, m, s) for i, d, m, s in mine if i in
                        {ds("mixed"), ds("bare"), ds("books"), ds("news")}]  # fmt: skip

    def test_the_model_and_what_was_taken_down_are_answered_as_stored(
        self, reads: ComplianceReads, graph: ComplianceGraph
    ) -> None:
        only_a, _ = graph.scopes()
        found = reads.model_data(graph.model("ft"), only_a)
        assert found is not None and not found.truncated
        assert (found.model.id, found.model.type, found.model.project) == (
            graph.model("ft"), "ModelVersion", graph.a)  # fmt: skip
        assert found.model.props["status"] == "candidate"
        taken = [(d.node.id, d.deleted_reason) for d in found.data if d.node.deleted_at]
        assert taken == [(graph.ds("forum"), TAKEDOWN)]
        assert all(d.deleted_reason is None for d in found.data if d.node.id != graph.ds("forum"))
        assert not [k for d in found.data for k in d.node.props if k.startswith("_v")]

    def test_what_the_caller_may_not_read_is_neither_answered_nor_walked_through(
        self, reads: ComplianceReads, graph: ComplianceGraph
    ) -> None:
        only_a, both = graph.scopes()
        only_b = Scope(frozenset({graph.b}))
        found = reads.model_data(graph.model("ft"), only_a)
        assert found is not None
        ids = {d.node.id for d in found.data}
        # b's version is not answered, and a's version behind it is not reached through it.
        assert graph.ds("shared", graph.b) not in ids and graph.ds("hidden") not in ids
        assert graph.ds("forum") in ids
        assert reads.model_data(graph.model("ft"), only_b) is None
        assert reads.model_data(graph.model("ft"), Scope(frozenset())) is None
        assert reads.model_data(graph.model("ft"), Scope.everything()) is not None
        assert reads.model_data(graph.model("ft"), both) is not None

    def test_missing_ids_and_other_kinds_answer_none(
        self, reads: ComplianceReads, graph: ComplianceGraph
    ) -> None:
        _, both = graph.scopes()
        for other in ("model:nowhere/m@1", graph.ds("books"), run_id(f"{graph.a}-ft"),
                      graph.ckpt("ft"), f"model:{graph.a}/base"):  # fmt: skip
            assert reads.model_data(other, both) is None, other

    def test_a_chain_longer_than_the_bound_is_cut_and_said_so(
        self, reads: ComplianceReads, graph: ComplianceGraph
    ) -> None:
        only_a, _ = graph.scopes()
        found = reads.model_data(graph.model("long"), only_a)
        assert found is not None and found.truncated
        # The run at 1, the version it trained on at 2, then one older version a step.
        kept = [graph.ds(f"long-{i}") for i in range(LONG, LONG - COMPLIANCE_DEPTH + 1, -1)]
        assert answered(found) == sorted((v, 2 + n, True, {}) for n, v in enumerate(kept))
        fits = reads.model_data(graph.model("fits"), only_a)
        assert fits is not None and not fits.truncated
        assert graph.ds("fits-0") in {d.node.id for d in fits.data}
        assert max(d.depth for d in fits.data) == COMPLIANCE_DEPTH

    def test_limit_bounds_the_versions_answered_by_id(
        self, reads: ComplianceReads, graph: ComplianceGraph
    ) -> None:
        only_a, _ = graph.scopes()
        every = answered(reads.model_data(graph.model("ft"), only_a))
        assert every is not None and len(every) == 6
        cut = reads.model_data(graph.model("ft"), only_a, limit=2)
        assert cut is not None and cut.truncated and answered(cut) == every[:2]
        whole = reads.model_data(graph.model("ft"), only_a, limit=len(every))
        assert whole is not None and not whole.truncated and answered(whole) == every
