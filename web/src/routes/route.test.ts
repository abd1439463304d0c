import { describe, expect, it } from "vitest";
import { apiDirection, apiGrouping, apiLessonKinds, formatRoute, link, parseRoute, type Route } from "./route";

describe("parseRoute", () => {
  it("reads a lineage link with every argument", () => {
    expect(parseRoute("#/lineage/run%3Aabc?direction=down&depth=3&types=RUN,MODEL_VERSION&asOf=2026-01-02T03:04:05Z")).toEqual({
      page: "lineage",
      id: "run:abc",
      direction: "down",
      depth: 3,
      types: ["RUN", "MODEL_VERSION"],
      asOf: "2026-01-02T03:04:05Z",
    });
  });

  it("defaults lineage to upstream, depth 5, and caps the depth at 20", () => {
    expect(parseRoute("#/lineage/x")).toMatchObject({ direction: "up", depth: 5, types: [], asOf: "" });
    expect(parseRoute("#/lineage/x?depth=99")).toMatchObject({ depth: 20 });
    expect(parseRoute("#/lineage/x?depth=-1&direction=sideways")).toMatchObject({ depth: 5, direction: "up" });
  });

  it("keeps ids with slashes and @ in one segment", () => {
    const id = "model:proj/name@3";
    const hash = formatRoute({ page: "node", id });
    expect(hash).toBe("#/node/model%3Aproj%2Fname%403");
    expect(parseRoute(hash)).toEqual({ page: "node", id });
  });

  it("reads diff with two ids and search with filters", () => {
    expect(parseRoute("#/diff/run%3Aa/run%3Ab")).toEqual({ page: "diff", a: "run:a", b: "run:b" });
    expect(parseRoute("#/search?q=resnet&type=RUN&project=vision")).toEqual({
      page: "search", q: "resnet", type: "RUN", project: "vision",
    });
    expect(parseRoute("")).toEqual({ page: "search", q: "", type: "", project: "" });
  });

  it("reads a lessons search with every filter", () => {
    expect(
      parseRoute(
        "#/search?mode=lessons&q=out+of+memory&project=demo-llm&kind=run&status=failed&metric=final%3Aval%2Floss%3C1.5&param=lr%3D2e-5&uses=dataset%3Ademo-llm%2Finstruct%40v2",
      ),
    ).toEqual({
      page: "search",
      mode: "lessons",
      q: "out of memory",
      project: "demo-llm",
      kinds: ["run"],
      status: "failed",
      metric: "final:val/loss<1.5",
      param: "lr=2e-5",
      uses: "dataset:demo-llm/instruct@v2",
    });
  });

  it("reads a lessons search's kinds repeated or comma-separated, lower case, once each", () => {
    expect(parseRoute("#/search?mode=lessons&q=oom&kind=run&kind=Model")).toMatchObject({ kinds: ["run", "model"] });
    expect(parseRoute("#/search?mode=lessons&q=oom&kind=run,experiment&kind=run")).toMatchObject({ kinds: ["run", "experiment"] });
    expect(parseRoute("#/search?mode=lessons")).toEqual({
      page: "search", mode: "lessons", q: "", project: "", kinds: [], status: "", metric: "", param: "", uses: "",
    });
  });

  it("reads a search without a mode, or with another one, as the search by name it always was", () => {
    expect(parseRoute("#/search?q=resnet&type=RUN&project=vision&kind=run")).toEqual({
      page: "search", q: "resnet", type: "RUN", project: "vision",
    });
    expect(parseRoute("#/search?mode=names&q=resnet")).toEqual({ page: "search", q: "resnet", type: "", project: "" });
    expect(parseRoute("#/search?mode=sideways")).toEqual({ page: "search", q: "", type: "", project: "" });
    expect(parseRoute("#/search")).toEqual({ page: "search", q: "", type: "", project: "" });
  });

  it("reads an id whose / was not encoded (a link typed or pasted by hand)", () => {
    expect(parseRoute("#/lineage/dataset:p/raw@v1?depth=3")).toMatchObject({ page: "lineage", id: "dataset:p/raw@v1", depth: 3 });
    expect(parseRoute("#/node/checkpoint:p-run/1000")).toEqual({ page: "node", id: "checkpoint:p-run/1000" });
    expect(parseRoute("#/diff/model:p/m@1/model:p/m@2")).toEqual({ page: "diff", a: "model:p/m@1", b: "model:p/m@2" });
    expect(parseRoute("#/diff/run:a/model:p/m@2")).toEqual({ page: "diff", a: "run:a", b: "model:p/m@2" });
    // The explorer's own links still round-trip.
    expect(parseRoute(link.node("dataset:p/raw@v1"))).toEqual({ page: "node", id: "dataset:p/raw@v1" });
  });

  it("reads a dossier link, its id encoded or typed by hand", () => {
    expect(parseRoute("#/dossier/model%3Ap%2Fchat-1b%401.0.0")).toEqual({ page: "dossier", id: "model:p/chat-1b@1.0.0" });
    expect(parseRoute("#/dossier/model:p/chat-1b@1.0.0")).toEqual({ page: "dossier", id: "model:p/chat-1b@1.0.0" });
    expect(link.dossier("model:p/m@1")).toBe("#/dossier/model%3Ap%2Fm%401");
    expect(parseRoute("#/dossier")).toEqual({ page: "unknown", hash: "/dossier" });
  });

  it("marks malformed links unknown", () => {
    expect(parseRoute("#/node")).toEqual({ page: "unknown", hash: "/node" });
    expect(parseRoute("#/diff/only-one").page).toBe("unknown");
    expect(parseRoute("#/nowhere/x").page).toBe("unknown");
  });

  it("defaults the digest window to 7d ending now", () => {
    expect(parseRoute("#/digest/vision")).toEqual({ page: "digest", project: "vision", since: "7d", until: "" });
  });

  it("reads the end of a past digest window", () => {
    expect(parseRoute("#/digest/vision?since=7d&until=2026-01-12T00%3A00%3A00Z")).toEqual({
      page: "digest",
      project: "vision",
      since: "7d",
      until: "2026-01-12T00:00:00Z",
    });
  });

  it("reads an effects link with every argument", () => {
    expect(parseRoute("#/effects/demo-llm?metric=final%3Aval%2Floss&by=factor&since=2026-01-12T00%3A00%3A00Z")).toEqual({
      page: "effects",
      project: "demo-llm",
      metric: "final:val/loss",
      by: "factor",
      since: "2026-01-12T00:00:00Z",
    });
  });

  it("defaults effects to grouping by value, every pair, no metric yet", () => {
    expect(parseRoute("#/effects/demo-llm")).toEqual({ page: "effects", project: "demo-llm", metric: "", by: "value", since: "" });
    expect(parseRoute("#/effects/demo-llm?metric=val/loss&by=sideways")).toMatchObject({ metric: "val/loss", by: "value" });
    expect(parseRoute("#/effects")).toEqual({ page: "unknown", hash: "/effects" });
  });

  it("reads a cost link, with the base's share or without it, its id encoded or typed by hand", () => {
    expect(parseRoute("#/cost/model%3Ademo-llm%2Fchat-1b%401.1.0?base=1")).toEqual({
      page: "cost",
      id: "model:demo-llm/chat-1b@1.1.0",
      base: true,
      metric: "",
      datasets: [],
      suite: "",
      higher: false,
    });
    expect(parseRoute("#/cost/experiment:demo-llm/exp-002")).toEqual({ page: "cost", id: "experiment:demo-llm/exp-002", base: false, metric: "", datasets: [], suite: "", higher: false });
    // Only `base=1` adds the base's share.
    expect(parseRoute("#/cost/model:p/m@1?base=0")).toMatchObject({ base: false });
    expect(parseRoute("#/cost/model:p/m@1?base=yes")).toMatchObject({ base: false });
    expect(parseRoute("#/cost")).toEqual({ page: "unknown", hash: "/cost" });
  });

  it("reads a cost link's gain question: the metric, the evaluation set's datasets (repeated) and suite, higher is better", () => {
    expect(parseRoute("#/cost/model:p/m@1?metric=acc&dataset=dataset%3Ap%2Feval%40v1&dataset=dataset%3Ap%2Fextra%40v2&suite=s&higher=1")).toEqual({
      page: "cost",
      id: "model:p/m@1",
      base: false,
      metric: "acc",
      datasets: ["dataset:p/eval@v1", "dataset:p/extra@v2"],
      suite: "s",
      higher: true,
    });
    expect(parseRoute("#/cost/model:p/m@1?metric=acc&higher=yes")).toMatchObject({ metric: "acc", higher: false, datasets: [] });
  });

  it("reads a guards link: the project, encoded or not; none is no page", () => {
    expect(parseRoute("#/guards/demo-llm")).toEqual({ page: "guards", project: "demo-llm" });
    expect(parseRoute("#/guards/demo%20llm")).toEqual({ page: "guards", project: "demo llm" });
    expect(parseRoute("#/guards/demo-llm?ignored=1")).toEqual({ page: "guards", project: "demo-llm" });
    expect(parseRoute("#/guards")).toEqual({ page: "unknown", hash: "/guards" });
  });

  it("reads a scale-up link: the run, encoded or not; none is no page", () => {
    expect(parseRoute("#/scale-up/run%3Ademo-scale-001")).toEqual({ page: "scale-up", run: "run:demo-scale-001" });
    expect(parseRoute("#/scale-up/run:demo-scale-001?x=1")).toEqual({ page: "scale-up", run: "run:demo-scale-001" });
    expect(parseRoute("#/scale-up")).toEqual({ page: "unknown", hash: "/scale-up" });
  });

  it("reads a checkpoints link: the run and the metric kept; none is no page", () => {
    expect(parseRoute("#/checkpoints/run%3Ademo-pretrain-001")).toEqual({ page: "checkpoints", run: "run:demo-pretrain-001", metric: "" });
    expect(parseRoute("#/checkpoints/run:r?metric=acc")).toEqual({ page: "checkpoints", run: "run:r", metric: "acc" });
    expect(parseRoute("#/checkpoints")).toEqual({ page: "unknown", hash: "/checkpoints" });
  });
});

describe("formatRoute", () => {
  const routes: Route[] = [
    { page: "search", q: "a b", type: "RUN", project: "p" },
    {
      page: "search",
      mode: "lessons",
      q: "out of memory",
      project: "demo llm",
      kinds: ["run", "model"],
      status: "failed",
      metric: "final:val/loss<1.5",
      param: "lr=2e-5",
      uses: "dataset:p/x@v1",
    },
    { page: "search", mode: "lessons", q: "", project: "", kinds: [], status: "", metric: "", param: "", uses: "" },
    { page: "lineage", id: "dsv:p/x@v2", direction: "both", depth: 7, types: ["RUN"], asOf: "2026-01-01T00:00:00Z" },
    { page: "impact", id: "ckpt:1" },
    { page: "reproduce", id: "model:p/m@1" },
    { page: "dossier", id: "model:p/m@1.0.0" },
    { page: "compare", experiment: "exp:p/3", metric: "final:val/loss" },
    { page: "best", model: "model:p/m", metric: "acc", dataset: "dsv:p/t@1", project: "", higher: true },
    { page: "digest", project: "vision", since: "24h", until: "" },
    { page: "digest", project: "demo llm", since: "7d", until: "2026-01-12T00:00:00+01:00" },
    { page: "effects", project: "demo-llm", metric: "final:val/loss", by: "value", since: "" },
    { page: "effects", project: "demo llm", metric: "val/loss", by: "factor", since: "2026-01-12T00:00:00+01:00" },
    { page: "effects", project: "demo-llm", metric: "", by: "value", since: "" },
    { page: "cost", id: "model:p/chat-1b@1.1.0", base: false, metric: "", datasets: [], suite: "", higher: false },
    { page: "cost", id: "model:p/chat-1b@1.1.0", base: true, metric: "", datasets: [], suite: "", higher: false },
    { page: "cost", id: "experiment:demo llm/exp-002", base: false, metric: "", datasets: [], suite: "", higher: false },
    { page: "cost", id: "model:p/chat-1b@1.1.0", base: true, metric: "acc", datasets: ["dataset:p/eval@v1", "dataset:p/x@v2"], suite: "s 1", higher: true },
    { page: "cost", id: "model:p/chat-1b@1.1.0", base: false, metric: "final:val/loss", datasets: [], suite: "", higher: false },
    { page: "guards", project: "demo-llm" },
    { page: "guards", project: "team/a b" },
    { page: "scale-up", run: "run:demo-scale-001" },
    { page: "checkpoints", run: "run:demo-pretrain-001", metric: "" },
    { page: "checkpoints", run: "run:demo-pretrain-001", metric: "eval/acc 1" },
  ];
  for (const route of routes) {
    it(`round-trips ${route.page}`, () => {
      expect(parseRoute(formatRoute(route))).toEqual(route);
    });
  }

  it("omits empty query arguments", () => {
    expect(formatRoute({ page: "search", q: "", type: "", project: "" })).toBe("#/search");
    expect(formatRoute({ page: "digest", project: "vision", since: "7d", until: "" })).toBe("#/digest/vision?since=7d");
  });

  it("writes a lessons search: the mode first, each kind as its own argument", () => {
    expect(
      formatRoute({
        page: "search",
        mode: "lessons",
        q: "out of memory",
        project: "demo-llm",
        kinds: ["run"],
        status: "failed",
        metric: "final:val/loss<1.5",
        param: "lr=2e-5",
        uses: "dataset:p/x@v1",
      }),
    ).toBe("#/search?mode=lessons&q=out+of+memory&project=demo-llm&kind=run&status=failed&metric=final%3Aval%2Floss%3C1.5&param=lr%3D2e-5&uses=dataset%3Ap%2Fx%40v1");
    expect(link.lessons("oom", "", { kinds: ["run", "model"] })).toBe("#/search?mode=lessons&q=oom&kind=run&kind=model");
    expect(link.lessons()).toBe("#/search?mode=lessons");
    // The search by name keeps the links it always had.
    expect(link.search("resnet", "vision")).toBe("#/search?q=resnet&project=vision");
    expect(formatRoute({ page: "search", q: "a b", type: "RUN", project: "p" })).toBe("#/search?q=a+b&type=RUN&project=p");
  });

  it("maps lesson kinds to the API enum", () => {
    expect(apiLessonKinds(["run", "dataset", "model"])).toEqual(["RUN", "DATASET", "MODEL"]);
  });

  it("writes the end of a digest window", () => {
    expect(formatRoute({ page: "digest", project: "vision", since: "7d", until: "2026-01-12T00:00:00Z" })).toBe(
      "#/digest/vision?since=7d&until=2026-01-12T00%3A00%3A00Z",
    );
  });

  it("writes an effects link: the metric, the grouping, the start of its pairs", () => {
    expect(formatRoute({ page: "effects", project: "demo-llm", metric: "final:val/loss", by: "factor", since: "2026-01-12T00:00:00Z" })).toBe(
      "#/effects/demo-llm?metric=final%3Aval%2Floss&by=factor&since=2026-01-12T00%3A00%3A00Z",
    );
    expect(link.effects("demo llm")).toBe("#/effects/demo%20llm?by=value");
    expect(link.effects("p", "final:val/loss")).toBe("#/effects/p?metric=final%3Aval%2Floss&by=value");
  });

  it("writes a cost link: the base's share only when asked for", () => {
    expect(link.cost("model:p/chat-1b@1.1.0")).toBe("#/cost/model%3Ap%2Fchat-1b%401.1.0");
    expect(link.cost("model:p/chat-1b@1.1.0", true)).toBe("#/cost/model%3Ap%2Fchat-1b%401.1.0?base=1");
    expect(formatRoute({ page: "cost", id: "experiment:p/exp-002", base: false, metric: "", datasets: [], suite: "", higher: false })).toBe("#/cost/experiment%3Ap%2Fexp-002");
    expect(formatRoute({ page: "cost", id: "model:p/m@1", base: false, metric: "acc", datasets: ["dataset:p/e@v1"], suite: "s", higher: true })).toBe(
      "#/cost/model%3Ap%2Fm%401?metric=acc&dataset=dataset%3Ap%2Fe%40v1&suite=s&higher=1",
    );
    // Without a metric, the evaluation set means nothing and is not written.
    expect(formatRoute({ page: "cost", id: "model:p/m@1", base: true, metric: "", datasets: ["dataset:p/e@v1"], suite: "s", higher: true })).toBe(
      "#/cost/model%3Ap%2Fm%401?base=1",
    );
  });

  it("writes a guards link: the project as one path segment", () => {
    expect(link.guards("demo-llm")).toBe("#/guards/demo-llm");
    expect(link.guards("demo llm")).toBe("#/guards/demo%20llm");
  });

  it("writes a scale-up link: the run as one path segment", () => {
    expect(link.scaleUp("run:demo-scale-001")).toBe("#/scale-up/run%3Ademo-scale-001");
  });

  it("writes a checkpoints link: the run as one path segment, the metric when one is kept", () => {
    expect(link.checkpoints("run:demo-pretrain-001")).toBe("#/checkpoints/run%3Ademo-pretrain-001");
    expect(link.checkpoints("run:r", "acc")).toBe("#/checkpoints/run%3Ar?metric=acc");
  });

  it("maps effect groupings to the API enum", () => {
    expect(apiGrouping("value")).toBe("VALUE");
    expect(apiGrouping("factor")).toBe("FACTOR");
  });

  it("maps directions to the API enum", () => {
    expect(apiDirection("up")).toBe("UPSTREAM");
    expect(apiDirection("down")).toBe("DOWNSTREAM");
    expect(apiDirection("both")).toBe("BOTH");
  });
});
