import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { LongValue } from "./LongValue";

const IMAGE = `registry.example.org/ml/trainer:2026.01@sha256:${"ab".repeat(32)}`;

/** The text of markup as the DOM's `textContent` gives it (tags dropped, entities read). */
function textContent(html: string): string {
  return html.replace(/<[^>]*>/g, "").replace(/&amp;/g, "&").replace(/&quot;/g, '"').replace(/&#x27;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">");
}

describe("LongValue", () => {
  it("shows a digest shortened, keeps the whole value in its text, tooltip and data-value, and offers a copy", () => {
    const html = renderToStaticMarkup(<LongValue value={IMAGE} />);
    expect(textContent(html)).toBe(IMAGE);
    expect(html).toContain("registry.example.org/<wbr/>ml/<wbr/>trainer:2026.01@<wbr/>sha256:abababababab<span");
    expect(html).toContain(`title="${IMAGE}"`);
    expect(html).toContain(`data-value="${IMAGE}"`);
    expect(html).toContain('data-shown="registry.example.org/ml/trainer:2026.01@sha256:abababababab…"');
    expect(html).toMatch(/<span class="elided">(ab){26}<\/span><span class="ellipsis" aria-hidden="true"><\/span>/);
    expect(html).toMatch(/<button type="button" class="copy-value"[^>]*aria-label="Copy the full value"/);
  });
  it("renders other values as their text, wrappable after / and @", () => {
    expect(renderToStaticMarkup(<LongValue value="run:demo-sft-002" />)).toBe("run:demo-sft-002");
    expect(renderToStaticMarkup(<LongValue value="dataset:p/instruct@v1" />)).toBe("dataset:p/<wbr/>instruct@<wbr/>v1");
  });
});
