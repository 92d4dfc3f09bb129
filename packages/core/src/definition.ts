/**
 * The built form of a workflow: plain JSON that the builder produces, the client submits, the
 * database stores and the worker reads, with a content hash that identifies it. Also the zod schema
 * and parser that check such JSON when it comes back from a database or another service.
 *
 * @packageDocumentation
 */
export * from './definition-types.js';
export * from './definition-messages.js';
export * from './definition-schema.js';
export * from './definition-rules.js';
export * from './definition-issues.js';
export * from './definition-parse.js';
