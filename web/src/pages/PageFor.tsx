import { lazy, Suspense, type ReactNode } from "react";
import { Loading } from "../components/Status";
import type { Route } from "../routes/route";

// Each page is its own chunk, fetched when first shown: the first page of a deep link does
// not wait for the code of the others (the graph drawing, the charts).
const BestPage = lazy(() => import("./BestPage").then((m) => ({ default: m.BestPage })));
const ComparePage = lazy(() => import("./ComparePage").then((m) => ({ default: m.ComparePage })));
const CostPage = lazy(() => import("./CostPage").then((m) => ({ default: m.CostPage })));
const DiffPage = lazy(() => import("./DiffPage").then((m) => ({ default: m.DiffPage })));
const DigestPage = lazy(() => import("./DigestPage").then((m) => ({ default: m.DigestPage })));
const DossierPage = lazy(() => import("./DossierPage").then((m) => ({ default: m.DossierPage })));
const EffectsPage = lazy(() => import("./EffectsPage").then((m) => ({ default: m.EffectsPage })));
const GuardsPage = lazy(() => import("./GuardsPage").then((m) => ({ default: m.GuardsPage })));
const ImpactPage = lazy(() => import("./ImpactPage").then((m) => ({ default: m.ImpactPage })));
const LineagePage = lazy(() => import("./LineagePage").then((m) => ({ default: m.LineagePage })));
const NodePage = lazy(() => import("./NodePage").then((m) => ({ default: m.NodePage })));
const CheckpointsPage = lazy(() => import("./CheckpointsPage").then((m) => ({ default: m.CheckpointsPage })));
const ScaleUpPage = lazy(() => import("./ScaleUpPage").then((m) => ({ default: m.ScaleUpPage })));
const ReproducePage = lazy(() => import("./ReproducePage").then((m) => ({ default: m.ReproducePage })));
const SearchPage = lazy(() => import("./SearchPage").then((m) => ({ default: m.SearchPage })));

/**
 * The page of a route, once its code is loaded. A lineage route's answer is already asked for
 * (main.tsx, on arrival; App, on sign-in), not here: rendering starts no request.
 */
export function PageFor({ route }: { route: Route }) {
  return <Suspense fallback={<Loading what="Loading the page" />}>{page(route)}</Suspense>;
}

function page(route: Route): ReactNode {
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
    case "dossier":
      return <DossierPage key={route.id} id={route.id} />;
    case "compare":
      return <ComparePage route={route} />;
    case "best":
      return <BestPage route={route} />;
    case "digest":
      return <DigestPage route={route} />;
    case "effects":
      return <EffectsPage route={route} />;
    case "cost":
      return <CostPage route={route} />;
    case "guards":
      return <GuardsPage route={route} />;
    case "scale-up":
      return <ScaleUpPage key={route.run} run={route.run} />;
    case "checkpoints":
      return <CheckpointsPage key={`${route.run} ${route.metric}`} run={route.run} metric={route.metric} />;
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
