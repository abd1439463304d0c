/** Keyboard moves between drawn nodes: the arrow keys go to a neighbour in that direction. */

export interface Point {
  x: number;
  y: number;
}

export type ArrowKey = "ArrowLeft" | "ArrowRight" | "ArrowUp" | "ArrowDown";

const VECTORS: Record<ArrowKey, Point> = {
  ArrowLeft: { x: -1, y: 0 },
  ArrowRight: { x: 1, y: 0 },
  ArrowUp: { x: 0, y: -1 },
  ArrowDown: { x: 0, y: 1 },
};

function best(from: Point, candidates: Iterable<[string, Point]>, key: ArrowKey): string | null {
  const v = VECTORS[key];
  let chosen: string | null = null;
  let score = Infinity;
  for (const [id, p] of candidates) {
    const dx = p.x - from.x;
    const dy = p.y - from.y;
    const along = dx * v.x + dy * v.y;
    if (along <= 0) continue;
    const across = Math.abs(dx * v.y - dy * v.x);
    if (across > 2 * along) continue; // not that way: outside a cone around the arrow
    const s = along + 2 * across;
    if (s < score) {
      score = s;
      chosen = id;
    }
  }
  return chosen;
}

/**
 * The node to focus after `key` on `current`: the nearest linked neighbour in that direction,
 * else the nearest node in that direction; null when there is none.
 */
export function nextFocus(
  current: string,
  key: ArrowKey,
  positions: ReadonlyMap<string, Point>,
  neighbours: ReadonlyMap<string, readonly { node: string }[]>,
): string | null {
  const here = positions.get(current);
  if (!here) return null;
  const linked = (neighbours.get(current) ?? [])
    .map((n) => n.node)
    .filter((id) => positions.has(id))
    .map((id) => [id, positions.get(id) as Point] as [string, Point]);
  const others = [...positions].filter(([id]) => id !== current);
  return best(here, linked, key) ?? best(here, others, key);
}

export function isArrowKey(key: string): key is ArrowKey {
  return key in VECTORS;
}
