import type { Tables } from './tables.js';

/**
 * One SQL statement, written once against the qualified table names. Every value is a bound
 * parameter (`$1`, `$2`, ...); nothing user-supplied is ever spliced into the text.
 */
export interface QueryDefinition {
  /** Stable name; with the schema it names the prepared statement on each connection. */
  readonly name: string;
  readonly text: (t: Tables) => string;
}

/** Declares a query. One query a file; the file is named after it. */
export function defineQuery(name: string, text: (t: Tables) => string): QueryDefinition {
  return { name, text };
}

/** A query compiled for one schema: what `pg` needs to prepare it once per connection. */
export interface CompiledQuery {
  readonly name: string;
  readonly text: string;
}

/** Compiles queries for a schema, once per store. */
export class QueryCompiler {
  private readonly cache = new Map<QueryDefinition, CompiledQuery>();
  constructor(private readonly tables: Tables) {}

  compile(query: QueryDefinition): CompiledQuery {
    let compiled = this.cache.get(query);
    if (!compiled) {
      const suffix = this.tables.schema === 'public' ? '' : `:${this.tables.schema}`;
      compiled = { name: `cyclone:${query.name}${suffix}`, text: query.text(this.tables) };
      this.cache.set(query, compiled);
    }
    return compiled;
  }
}
