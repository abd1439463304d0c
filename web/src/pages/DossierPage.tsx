import { useCallback, useEffect, useRef, useState } from "react";
import { fetchDossierFile, saveFile } from "../api/dossier";
import { DOSSIER_QUERY } from "../api/queries";
import { useQuery } from "../api/useQuery";
import { NodeLink } from "../components/NodeLink";
import { ErrorView, Loading, NotFound } from "../components/Status";

/**
 * The document is the service's own HTML (inline CSS, no scripts, every recorded value
 * escaped), shown as it is in a sandboxed frame. The sandbox never allows scripts, forms,
 * pop-ups or navigation of the explorer: nothing in a recorded value can run. It allows
 * modals (the print dialog) and keeps the explorer's origin, without which the explorer could
 * neither print the frame nor read its height.
 */
export const DOSSIER_SANDBOX = "allow-modals allow-same-origin";

type Download = { state: "idle" } | { state: "busy" } | { state: "saved"; filename: string } | { state: "failed"; error: Error };

/** The frame as tall as its document, so the page (and its printout) shows all of it. */
function fitToDocument(frame: HTMLIFrameElement | null): void {
  const root = frame?.contentDocument?.documentElement;
  if (!frame || !root) return;
  // Measured with the frame collapsed: a document that got shorter lets the frame shrink.
  frame.style.height = "0px";
  frame.style.height = `${Math.max(root.scrollHeight, 200)}px`;
}

/** A model version's dossier: the service's document, printable and as a PDF. */
export function DossierPage({ id }: { id: string }) {
  const { data, error, loading } = useQuery(DOSSIER_QUERY, { id });
  const frame = useRef<HTMLIFrameElement>(null);
  const [download, setDownload] = useState<Download>({ state: "idle" });
  const [printError, setPrintError] = useState<Error | null>(null);

  // Printing lays the document out again (the page's width, its own print rules): the frame
  // follows it, so the printout holds the whole document.
  useEffect(() => {
    const refit = () => fitToDocument(frame.current);
    const print = window.matchMedia?.("print");
    print?.addEventListener("change", refit);
    window.addEventListener("beforeprint", refit);
    window.addEventListener("afterprint", refit);
    window.addEventListener("resize", refit);
    return () => {
      print?.removeEventListener("change", refit);
      window.removeEventListener("beforeprint", refit);
      window.removeEventListener("afterprint", refit);
      window.removeEventListener("resize", refit);
    };
  }, []);

  const print = useCallback(() => {
    setPrintError(null);
    try {
      const target = frame.current?.contentWindow;
      if (!target) throw new Error("The document is not loaded yet.");
      target.focus();
      target.print();
    } catch (err) {
      setPrintError(err instanceof Error ? err : new Error(String(err)));
    }
  }, []);

  const downloadPdf = useCallback(() => {
    setDownload({ state: "busy" });
    fetchDossierFile(id, "pdf")
      .then((file) => {
        saveFile(file);
        setDownload({ state: "saved", filename: file.filename });
      })
      .catch((err: unknown) => setDownload({ state: "failed", error: err instanceof Error ? err : new Error(String(err)) }));
  }, [id]);

  if (loading && !data) return <Loading what="Assembling the dossier" />;
  if (error) return <ErrorView error={error} id={id} />;
  const dossier = data?.dossier;
  if (!dossier) return <NotFound id={id} />;
  const gaps = dossier.gaps;
  return (
    <article className="dossier" data-dossier={dossier.id}>
      <header className="dossier-head">
        <h2 data-field="title">{dossier.title}</h2>
        <p>
          The dossier of <NodeLink id={dossier.id} type="ModelVersion" />: everything recorded about the version, in
          one document.
        </p>
        <p data-testid="dossier-gaps-count" data-count={gaps.length} className={gaps.length ? "warning" : "muted"}>
          {gaps.length === 0
            ? "No gaps: nothing the dossier asks for is missing from the record."
            : `${gaps.length} ${gaps.length === 1 ? "gap" : "gaps"}: what the record does not say.`}
        </p>
        {gaps.length > 0 && (
          <details>
            <summary>The gaps</summary>
            <ul data-testid="dossier-gaps">
              {gaps.map((gap, n) => (
                <li key={n} data-field="gap">
                  {gap}
                </li>
              ))}
            </ul>
          </details>
        )}
        <div className="actions dossier-actions">
          <button type="button" onClick={print}>
            Print
          </button>
          <button type="button" onClick={downloadPdf} disabled={download.state === "busy"}>
            {download.state === "busy" ? "Fetching the PDF…" : "Download PDF"}
          </button>
          {download.state === "saved" && (
            <span className="muted" role="status" data-testid="dossier-download">
              Saved as <code>{download.filename}</code>.
            </span>
          )}
        </div>
        {download.state === "failed" && <ErrorView error={download.error} />}
        {printError && <ErrorView error={printError} />}
      </header>
      <iframe
        ref={frame}
        className="dossier-frame"
        title={`Dossier: ${dossier.title}`}
        sandbox={DOSSIER_SANDBOX}
        srcDoc={dossier.html}
        onLoad={(e) => fitToDocument(e.currentTarget)}
        data-testid="dossier-document"
      />
    </article>
  );
}
