import { useState } from "react";

/** Copies `text` to the clipboard and says so. */
export function CopyButton({ text, label = "Copy" }: { text: string; label?: string }) {
  const [done, setDone] = useState<"idle" | "copied" | "failed">("idle");
  const copy = () => {
    navigator.clipboard
      .writeText(text)
      .then(() => setDone("copied"))
      .catch(() => setDone("failed"));
  };
  return (
    <button type="button" className="copy" onClick={copy} aria-label={`${label}: ${text.slice(0, 60)}`}>
      {done === "copied" ? "Copied ✔" : done === "failed" ? "Copy failed" : label}
    </button>
  );
}
