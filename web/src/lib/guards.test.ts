import { describe, expect, it } from "vitest";
import type { MetricGroup } from "../api/types";
import { breaksText, declareCommand, enforcedText, groupState, kindText, pendingAliases, shellWord, spellingText } from "./guards";

const group = (key: string, canonical: string, undeclared: string[], settled = !undeclared.length): MetricGroup => ({
  key,
  canonical,
  settled,
  undeclared,
  names: [],
});

describe("guards texts", () => {
  it("declares every undeclared spelling as an alias of its group's canonical name, as lint-metrics prints it", () => {
    const groups = [group("val/loss", "val/loss", ["val_loss", "Val Loss"]), group("acc", "acc", []), group("train/loss", "train/loss", ["train-loss"])];
    expect(pendingAliases(groups)).toEqual([
      ["val_loss", "val/loss"],
      ["Val Loss", "val/loss"],
      ["train-loss", "train/loss"],
    ]);
    expect(declareCommand("demo-llm", groups)).toBe(
      "provgraph policy set demo-llm --metric-alias val_loss=val/loss --metric-alias 'Val Loss=val/loss' --metric-alias train-loss=train/loss",
    );
    expect(declareCommand("p", [group("acc", "acc", [])])).toBeNull();
    expect(declareCommand("p", [])).toBeNull();
  });

  it("quotes a word for the shell only when it must", () => {
    expect(shellWord("val/loss=eval:loss@1")).toBe("val/loss=eval:loss@1");
    expect(shellWord("a b")).toBe("'a b'");
    expect(shellWord("it's")).toBe(`'it'"'"'s'`);
    expect(shellWord("$HOME")).toBe("'$HOME'");
    expect(shellWord("")).toBe("''");
  });

  it("says a group's state and each spelling's records and alias", () => {
    expect(groupState({ settled: true })).toBe("settled");
    expect(groupState({ settled: false })).toBe("not declared");
    expect(spellingText({ name: "validation/loss", records: 2, aliasOf: "val/loss" })).toBe("validation/loss: 2 records, alias of val/loss");
    expect(spellingText({ name: "val_loss", records: 1, aliasOf: null })).toBe("val_loss: 1 record");
  });

  it("counts a rule's breaks of the records checked, and says when more were not checked", () => {
    expect(breaksText({ breaks: [{ id: "run:1", name: "tmp", problem: "", suggestion: null }], checked: 3, truncated: false })).toBe("1 of 3 break it");
    expect(breaksText({ breaks: [], checked: 500, truncated: true })).toBe("0 of 500 break it (more not checked)");
    expect(kindText("model_version")).toBe("model version");
    expect(enforcedText(true)).toBe("refused at ingest");
    expect(enforcedText(false)).toBe("not enforced");
  });
});
