import { verdictText } from "../lib/gates";

/** Pass / fail as an icon AND a word (colour is never the only signal). */
export function Verdict({ passed, field }: { passed: boolean | null | undefined; field?: string }) {
  const v = verdictText(passed ?? null);
  return (
    <span className={`verdict verdict-${v.label}`} data-field={field}>
      <span aria-hidden="true">{v.icon}</span> {v.label}
    </span>
  );
}
