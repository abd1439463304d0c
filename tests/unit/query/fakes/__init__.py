"""In-memory fakes of the query service's read ports, and `fake_readers`, the bundle of them
the GraphQL unit tests hand to `make_context` (the ReadModel's fake is `fake_reader.FakeReader`,
the column walk's `fake_reader.FakeColumnReads`)."""

from __future__ import annotations

from fake_reader import FakeReader

from fakes.best_env import FakeBestEnvReads
from fakes.checkpoints import FakeCheckpointReads
from fakes.compare import FakeCompareReads
from fakes.compliance import FakeComplianceReads
from fakes.conventions import FakeConventionReads
from fakes.cost import FakeCostReads
from fakes.digest import FakeDigestReads
from fakes.dossier import FakeDossierReads
from fakes.feedback import FakeFeedbackReads
from fakes.lessons import FakeLessonReads
from fakes.marquez import FakeMarquezReads
from fakes.prov import FakeProvReads
from fakes.recipes import FakeRecipeReads
from fakes.records import FakeRecordsReads
from fakes.retention import FakeRetentionReads
from fakes.scale_up import FakeScaleUpReads
from fakes.series import FakeSeriesReads
from provgraph.query.read.best_env_reads import BestEnvReads
from provgraph.query.read.checkpoint_reads import CheckpointReads
from provgraph.query.read.compare_reads import CompareReads
from provgraph.query.read.compliance_reads import ComplianceReads
from provgraph.query.read.convention_reads import ConventionReads
from provgraph.query.read.cost_reads import CostReads
from provgraph.query.read.digest_reads import DigestReads
from provgraph.query.read.dossier_reads import DossierReads
from provgraph.query.read.feedback_reads import FeedbackReads
from provgraph.query.read.lesson_reads import LessonReads
from provgraph.query.read.ports import MarquezReads
from provgraph.query.read.prov_reads import ProvReads
from provgraph.query.read.readers import Readers
from provgraph.query.read.recipe_reads import RecipeReads
from provgraph.query.read.records_reads import RecordsReads
from provgraph.query.read.retention_reads import RetentionReads
from provgraph.query.read.scale_up_reads import ScaleUpReads
from provgraph.query.read.series_reads import SeriesReads

__all__ = [
    "FakeBestEnvReads",
    "FakeCheckpointReads",
    "FakeCompareReads",
    "FakeComplianceReads",
    "FakeConventionReads",
    "FakeCostReads",
    "FakeDigestReads",
    "FakeDossierReads",
    "FakeFeedbackReads",
    "FakeLessonReads",
    "FakeMarquezReads",
    "FakeProvReads",
    "FakeRecipeReads",
    "FakeRecordsReads",
    "FakeRetentionReads",
    "FakeScaleUpReads",
    "FakeSeriesReads",
    "fake_readers",
]


def fake_readers(
    graph: FakeReader | None = None,
    *,
    marquez: MarquezReads | None = None,
    recipes: RecipeReads | None = None,
    compare: CompareReads | None = None,
    best_env: BestEnvReads | None = None,
    digest: DigestReads | None = None,
    series: SeriesReads | None = None,
    feedback: FeedbackReads | None = None,
    dossier: DossierReads | None = None,
    prov: ProvReads | None = None,
    retention: RetentionReads | None = None,
    compliance: ComplianceReads | None = None,
    records: RecordsReads | None = None,
    lessons: LessonReads | None = None,
    cost: CostReads | None = None,
    conventions: ConventionReads | None = None,
    scale_up: ScaleUpReads | None = None,
    checkpoints: CheckpointReads | None = None,
) -> Readers:
    """Every reader in memory: `graph` (an empty graph by default) and its column reads, and
    the fakes given; each other port a fake that knows nothing."""
    graph = graph if graph is not None else FakeReader([], [])
    return Readers(
        graph=graph,
        marquez=marquez or FakeMarquezReads(),
        columns=graph.columns,
        recipes=recipes or FakeRecipeReads(),
        compare=compare or FakeCompareReads(),
        best_env=best_env or FakeBestEnvReads(),
        digest=digest or FakeDigestReads(),
        series=series or FakeSeriesReads(),
        feedback=feedback or FakeFeedbackReads(),
        dossier=dossier or FakeDossierReads(),
        prov=prov or FakeProvReads(),
        retention=retention or FakeRetentionReads(),
        compliance=compliance or FakeComplianceReads(),
        records=records or FakeRecordsReads(),
        lessons=lessons or FakeLessonReads(),
        cost=cost or FakeCostReads(),
        conventions=conventions or FakeConventionReads(),
        scale_up=scale_up or FakeScaleUpReads(),
        checkpoints=checkpoints or FakeCheckpointReads(),
    )
