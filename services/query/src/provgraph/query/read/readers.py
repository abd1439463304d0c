"""Every reader of the query service, one port each, and the one place they are built.

`Readers` is assembled once: by the app when it starts (`http/app.py`), by a command of the
command line for its run (`query/connect.py`), by a test from fakes. Resolvers, routes and
commands read the graph only through it; none opens a session of its own.
"""

from __future__ import annotations

from dataclasses import dataclass

from neo4j import Driver

from provgraph.query.read.best_env_reads import BestEnvReader, BestEnvReads
from provgraph.query.read.checkpoint_reads import CheckpointReader, CheckpointReads
from provgraph.query.read.column_reads import ColumnReader, ColumnReads
from provgraph.query.read.compare_reads import CompareReader, CompareReads
from provgraph.query.read.compliance_reads import ComplianceReader, ComplianceReads
from provgraph.query.read.convention_reads import ConventionReader, ConventionReads
from provgraph.query.read.cost_reads import CostReader, CostReads
from provgraph.query.read.digest_reads import DigestReader, DigestReads
from provgraph.query.read.dossier_reads import DossierReader, DossierReads
from provgraph.query.read.feedback_reads import FeedbackReader, FeedbackReads
from provgraph.query.read.lesson_reads import LessonReader, LessonReads
from provgraph.query.read.marquez_reads import MarquezReader
from provgraph.query.read.ports import MarquezReads, ReadModel
from provgraph.query.read.prov_reads import ProvReader, ProvReads
from provgraph.query.read.reader import GraphReader
from provgraph.query.read.recipe_reads import RecipeReader, RecipeReads
from provgraph.query.read.records_reads import RecordsReader, RecordsReads
from provgraph.query.read.retention_reads import RetentionReader, RetentionReads
from provgraph.query.read.scale_up_reads import ScaleUpReader, ScaleUpReads
from provgraph.query.read.series_reads import SeriesReader, SeriesReads
from provgraph.query.read.session import ReadSession
from provgraph.query.settings import QuerySettings


@dataclass(frozen=True)
class Readers:
    """The readers of the graph, one per port; every method of each takes the caller's
    `Scope`, so one set serves every caller."""

    graph: ReadModel
    marquez: MarquezReads
    columns: ColumnReads
    recipes: RecipeReads
    compare: CompareReads
    best_env: BestEnvReads
    digest: DigestReads
    series: SeriesReads
    feedback: FeedbackReads
    retention: RetentionReads
    dossier: DossierReads
    prov: ProvReads
    compliance: ComplianceReads
    records: RecordsReads
    lessons: LessonReads
    cost: CostReads
    conventions: ConventionReads
    scale_up: ScaleUpReads
    checkpoints: CheckpointReads


def neo4j_readers(
    driver: Driver, database: str = "neo4j", settings: QuerySettings | None = None
) -> Readers:
    """Every reader over one bounded read session of `driver` (`settings.read_timeout_s`)."""
    settings = settings if settings is not None else QuerySettings()
    session = ReadSession(driver, database, settings.read_timeout_s)
    columns = ColumnReader(session)
    return Readers(
        graph=GraphReader(session, columns, settings),
        marquez=MarquezReader(session, settings),
        columns=columns,
        recipes=RecipeReader(session),
        compare=CompareReader(session),
        best_env=BestEnvReader(session),
        digest=DigestReader(session),
        series=SeriesReader(session),
        feedback=FeedbackReader(session),
        retention=RetentionReader(session),
        dossier=DossierReader(session),
        prov=ProvReader(session),
        compliance=ComplianceReader(session),
        records=RecordsReader(session),
        lessons=LessonReader(session),
        cost=CostReader(session),
        conventions=ConventionReader(session),
        scale_up=ScaleUpReader(session),
        checkpoints=CheckpointReader(session),
    )
