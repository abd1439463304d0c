import { describe, expect, it } from "vitest";
import { acceleratorHoursText, baseText, checkpointsText, lostText, sizeText, storageText } from "./costs";

describe("cost texts", () => {
  it("writes sizes in decimal units with three significant digits, as the CLI does", () => {
    expect(sizeText(0)).toBe("0 B");
    expect(sizeText(512)).toBe("512 B");
    expect(sizeText(1500)).toBe("1.5 kB");
    expect(sizeText(4_000_000_000)).toBe("4 GB");
    expect(sizeText(1_234_567)).toBe("1.23 MB");
    expect(sizeText(3_000_000_000_000_000)).toBe("3000 TB");
  });

  it("gives a run's checkpoint storage, the checkpoints without a size, and a floor when capped", () => {
    const none = { checkpointBytes: 0, checkpointsWithoutSize: 0, checkpointsCapped: false };
    expect(checkpointsText(none)).toBe("—");
    expect(checkpointsText({ ...none, checkpointBytes: 2_000_000_000 })).toBe("2 GB");
    expect(checkpointsText({ ...none, checkpointBytes: 2_000_000_000, checkpointsWithoutSize: 1 })).toBe("2 GB, 1 without a size");
    expect(checkpointsText({ ...none, checkpointsWithoutSize: 3 })).toBe("3 without a size");
    expect(checkpointsText({ ...none, checkpointBytes: 2_000_000_000, checkpointsCapped: true })).toBe("≥ 2 GB");
  });

  it("writes the totals' lines as `provgraph cost` prints them", () => {
    const totals = {
      hours: 3,
      acceleratorHours: 24,
      lostHours: 0.5,
      lostAcceleratorHours: 4,
      checkpointBytes: 3_000_000_000,
      runsWithoutResources: [],
      byRole: [
        { role: "producing run", runs: 1, hours: 2, acceleratorHours: 16 },
        { role: "failed attempt", runs: 1, hours: 1, acceleratorHours: 8 },
      ],
    };
    expect(acceleratorHoursText(totals)).toBe("accelerator-hours: 24: producing run 16 (1 run), failed attempt 8 (1 run)");
    expect(acceleratorHoursText({ acceleratorHours: 40.26666, byRole: [{ role: "completed", runs: 3, hours: 5, acceleratorHours: 40.26666 }] })).toBe(
      "accelerator-hours: 40.2667: completed 40.2667 (3 runs)",
    );
    expect(acceleratorHoursText({ acceleratorHours: 0, byRole: [] })).toBe("accelerator-hours: 0");
    expect(lostText(totals)).toBe("lost to interruptions: 4 accelerator-hours (0.5 hours)");
    expect(storageText(totals)).toBe("checkpoint storage: 3 GB");
  });

  it("writes the base's share and the total with it", () => {
    const base = {
      modelVersion: "model:p/base@1.0.0",
      run: "run:p-pretrain",
      hours: 10,
      acceleratorHours: 160,
      users: 3,
      share: 0.333333,
      shareHours: 3.3333,
      shareAcceleratorHours: 53.3333,
      runsWithoutResources: [],
    };
    expect(baseText(base, { hours: 6.3333, acceleratorHours: 77.3333 })).toBe(
      "base model:p/base@1.0.0: 160 accelerator-hours (10 hours), shared by 3 runs: 53.3333; with it: 77.3333 accelerator-hours",
    );
    const unmeasured = { ...base, acceleratorHours: 0, hours: 0.6667, users: 6, shareAcceleratorHours: 0, runsWithoutResources: ["run:p-pretrain"] };
    expect(baseText(unmeasured, { hours: 2, acceleratorHours: 14.9333 })).toBe(
      "base model:p/base@1.0.0: 0 accelerator-hours (0.6667 hours, 1 run without recorded resources), shared by 6 runs: 0; with it: 14.9333 accelerator-hours",
    );
  });
});
