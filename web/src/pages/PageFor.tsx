import type { Route } from "../routes/route";
import { BestPage } from "./BestPage";
import { ComparePage } from "./ComparePage";
import { DiffPage } from "./DiffPage";
import { DigestPage } from "./DigestPage";
import { ImpactPage } from "./ImpactPage";
import { LineagePage } from "./LineagePage";
import { NodePage } from "./NodePage";
import { ReproducePage } from "./ReproducePage";
import { SearchPage } from "./SearchPage";

/** The page of a route. */
export function PageFor({ route }: { route: Route }) {
  switch (route.page) {
    case "search":
      return <SearchPage route={route} />;
    case "node":
      return <NodePage key={route.id} id={route.id} />;
    case "lineage":
      return <LineagePage route={route} />;
    case "impact":
      return <ImpactPage id={route.id} />;
    case "diff":
      return <DiffPage a={route.a} b={route.b} />;
    case "reproduce":
      return <ReproducePage id={route.id} />;
    case "compare":
      return <ComparePage route={route} />;
    case "best":
      return <BestPage route={route} />;
    case "digest":
      return <DigestPage route={route} />;
    case "unknown":
      return (
        <section className="not-found">
          <h2>No such page</h2>
          <p>
            <code>#{route.hash}</code> is not a page of the explorer. <a href="#/search">Search</a>.
          </p>
        </section>
      );
  }
}
