import { describe, expect, it } from "vitest";
import { DOSSIER_SANDBOX } from "./DossierPage";

describe("the dossier frame", () => {
  it("never lets the document run scripts, submit forms, open pop-ups or navigate the explorer", () => {
    const allowed = DOSSIER_SANDBOX.split(/\s+/);
    for (const token of ["allow-scripts", "allow-forms", "allow-popups", "allow-top-navigation", "allow-top-navigation-by-user-activation"]) {
      expect(allowed).not.toContain(token);
    }
    // The print dialog, and the explorer reaching the frame to print it and to read its height.
    expect(allowed.sort()).toEqual(["allow-modals", "allow-same-origin"]);
  });
});
