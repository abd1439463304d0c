/** How each node type is drawn: colour, shape and a glyph, always with the type's name. */

export interface TypeStyle {
  /** The text label shown in every node (colour is never the only signal). */
  label: string;
  glyph: string;
  colour: string;
  /** CSS class giving the shape. */
  shape: "rect" | "round" | "pill" | "cut" | "double";
}

const STYLES: Record<string, TypeStyle> = {
  Dataset: { label: "Dataset", glyph: "▤", colour: "#0b6e4f", shape: "double" },
  DatasetVersion: { label: "Dataset version", glyph: "▦", colour: "#1a7f5a", shape: "round" },
  Experiment: { label: "Experiment", glyph: "⚗", colour: "#6a4c93", shape: "double" },
  Run: { label: "Run", glyph: "▶", colour: "#1f5fa8", shape: "rect" },
  Checkpoint: { label: "Checkpoint", glyph: "◆", colour: "#5c6b7a", shape: "cut" },
  Model: { label: "Model", glyph: "⬢", colour: "#a2541b", shape: "double" },
  ModelVersion: { label: "Model version", glyph: "⬡", colour: "#b8621b", shape: "pill" },
  Evaluation: { label: "Evaluation", glyph: "✓", colour: "#7a6a00", shape: "cut" },
  Deployment: { label: "Deployment", glyph: "⇪", colour: "#a1224f", shape: "pill" },
  Environment: { label: "Environment", glyph: "⚙", colour: "#4a5568", shape: "rect" },
};

/** The style of a type; unknown types are drawn as grey rectangles with their raw label. */
export function typeStyle(type: string): TypeStyle {
  return STYLES[type] ?? { label: type, glyph: "•", colour: "#555", shape: "rect" };
}

/** The NodeType enum values, for filters. */
export const NODE_TYPES = [
  "DATASET",
  "DATASET_VERSION",
  "EXPERIMENT",
  "RUN",
  "CHECKPOINT",
  "MODEL",
  "MODEL_VERSION",
  "EVALUATION",
  "DEPLOYMENT",
  "ENVIRONMENT",
] as const;

/** `MODEL_VERSION` → `Model version`. */
export function enumLabel(value: string): string {
  const text = value.toLowerCase().replace(/_/g, " ");
  return text.charAt(0).toUpperCase() + text.slice(1);
}
