/**
 * The query service's cost estimate of a GraphQL operation (the rule of
 * services/query/src/provgraph/query/graphql/limits.py), so a test can keep every document
 * the explorer sends under the service's default limit.
 *
 * Every selected field counts 1, times the number of items the lists above it may return:
 * a list counts as its own literal `first`/`limit`, or its parent's (a page's `items`), else
 * as DEFAULT_LIST_SIZE. Directives (`@include`, `@skip`) do not lower the estimate.
 */

import {
  getNamedType,
  getNullableType,
  isInterfaceType,
  isListType,
  isObjectType,
  Kind,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLNamedType,
  type GraphQLSchema,
  type SelectionSetNode,
} from "graphql";

/** The service's default `graphql_max_complexity`. */
export const MAX_COST = 5000;
/** A list without a literal `first`/`limit` counts as this many items. */
export const DEFAULT_LIST_SIZE = 10;
const SIZE_ARGS = ["first", "limit"];

/** The estimated cost of each operation of `document`, by operation name. */
export function operationCosts(schema: GraphQLSchema, document: DocumentNode): Map<string, number> {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const costs = new Map<string, number>();
  for (const d of document.definitions) {
    if (d.kind !== Kind.OPERATION_DEFINITION) continue;
    const root = schema.getRootType(d.operation);
    if (!root) continue;
    costs.set(d.name?.value ?? "(anonymous)", selectionCost(schema, fragments, d.selectionSet, root, 1, new Set(), null));
  }
  return costs;
}

function selectionCost(
  schema: GraphQLSchema,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  selections: SelectionSetNode | undefined,
  parent: GraphQLNamedType,
  mult: number,
  seen: ReadonlySet<string>,
  hint: number | null,
): number {
  if (!selections) return 0;
  let total = 0;
  for (const sel of selections.selections) {
    if (sel.kind === Kind.FIELD) {
      total += fieldCost(schema, fragments, sel, parent, mult, seen, hint);
    } else if (sel.kind === Kind.INLINE_FRAGMENT) {
      const scope = sel.typeCondition ? schema.getType(sel.typeCondition.name.value) : parent;
      total += selectionCost(schema, fragments, sel.selectionSet, scope ?? parent, mult, seen, hint);
    } else if (sel.kind === Kind.FRAGMENT_SPREAD && !seen.has(sel.name.value)) {
      const frag = fragments.get(sel.name.value);
      if (frag) {
        const scope = schema.getType(frag.typeCondition.name.value) ?? parent;
        total += selectionCost(schema, fragments, frag.selectionSet, scope, mult, new Set([...seen, sel.name.value]), hint);
      }
    }
  }
  return total;
}

function fieldCost(
  schema: GraphQLSchema,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  node: FieldNode,
  parent: GraphQLNamedType,
  mult: number,
  seen: ReadonlySet<string>,
  hint: number | null,
): number {
  if (!isObjectType(parent) && !isInterfaceType(parent)) return mult;
  const definition = parent.getFields()[node.name.value];
  if (!definition) return mult;
  const size = sizeArg(node);
  const listed = isListType(getNullableType(definition.type));
  const factor = listed ? (size ?? hint ?? DEFAULT_LIST_SIZE) : 1;
  const child = getNamedType(definition.type);
  return mult + selectionCost(schema, fragments, node.selectionSet, child, mult * factor, seen, listed ? null : size);
}

function sizeArg(node: FieldNode): number | null {
  for (const arg of node.arguments ?? []) {
    if (SIZE_ARGS.includes(arg.name.value) && arg.value.kind === Kind.INT) return Math.max(1, parseInt(arg.value.value, 10));
  }
  return null;
}
