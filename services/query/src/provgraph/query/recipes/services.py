"""Each question service over a service's readers and settings, made one way for every caller:
the GraphQL resolvers (`GraphContext.services`), the commands and the benchmarks. A caller
that made one by hand could pass fewer readers (a compare without the project's metric
aliases reads less, and answers differently) or other bounds than the service's own."""

from __future__ import annotations

from provgraph.query.read.readers import Readers
from provgraph.query.recipes.best_env_service import BestAndEnvironments
from provgraph.query.recipes.checkpoint_stages import CheckpointStages
from provgraph.query.recipes.compare_service import Comparisons, comparisons
from provgraph.query.recipes.cost import Costs
from provgraph.query.recipes.dossier import Dossiers
from provgraph.query.recipes.guards import Guards
from provgraph.query.recipes.lessons import Lessons
from provgraph.query.recipes.listing import Listing
from provgraph.query.recipes.scale_up import ScaleUps
from provgraph.query.recipes.service import Recipes
from provgraph.query.recipes.team_service import TeamQuestions
from provgraph.query.settings import QuerySettings


class RecipeServices:
    """The services of `readers`, bounded by `settings`; `recipes` (made over
    `readers.recipes` unless given) for the best-version questions. Each method makes its
    service anew: they hold no state between calls, and making one costs an object."""

    def __init__(
        self, settings: QuerySettings, readers: Readers, recipes: Recipes | None = None
    ) -> None:
        self.settings = settings
        self.readers = readers
        self.recipes = recipes if recipes is not None else Recipes(readers.recipes)

    def comparisons(self) -> Comparisons:
        """compare and effects, each project's metric aliases honoured."""
        return comparisons(self.readers, self.settings)

    def lessons(self) -> Lessons:
        s = self.settings
        return Lessons(self.readers.lessons, s.lessons_candidates, s.page_max_size)

    def costs(self) -> Costs:
        r = self.readers
        return Costs(r.digest, r.cost, self.settings.page_max_size, r.best_env)

    def dossiers(self) -> Dossiers:
        return Dossiers(self.recipes, self.readers.dossier, self.readers.feedback)

    def guards(self) -> Guards:
        return Guards(self.readers.conventions, self.settings.guards_max_records)

    def scale_ups(self) -> ScaleUps:
        return ScaleUps(self.readers.scale_up, self.readers.series)

    def checkpoint_stages(self) -> CheckpointStages:
        r = self.readers
        return CheckpointStages(r.checkpoints, self.settings.checkpoint_stages_max, r.conventions)

    def listing(self) -> Listing:
        s = self.settings
        return Listing(self.readers.graph, s.list_scan_max, s.page_max_size)

    def best_and_environments(self) -> BestAndEnvironments:
        r = self.readers
        return BestAndEnvironments(r.best_env, self.recipes, conventions=r.conventions)

    def team(self) -> TeamQuestions:
        """The digest and the checkpoint advice."""
        return TeamQuestions(self.readers.digest, self.settings.page_max_size)
