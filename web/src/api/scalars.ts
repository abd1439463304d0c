/** The custom scalars of schema.graphql as the explorer reads them (codegen.ts maps them here). */

/** A `JSON` value as the API sends it. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
