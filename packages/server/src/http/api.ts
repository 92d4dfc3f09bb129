import {
  OpenAPIRegistry,
  type ResponseConfig,
  type RouteConfig,
} from '@asteasolutions/zod-to-openapi';
import type { Context, Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { z } from 'zod';
import { buildApiDescription, type ApiDescription } from './api-description.js';
import type { AppEnv } from './context.js';
import { errorResponses, type ErrorStatus } from './error-schemas.js';
import type { ErrorBody } from './http-errors.js';
import { queryObject } from './request-query.js';
import { parseRequest, readJsonBody } from './validation.js';

/** An answer a route gives: JSON described by `body`, or other media types by `content`. */
export interface Answer {
  readonly description: string;
  /** The JSON body. */
  readonly body?: z.ZodType;
  /** Media types other than JSON (text, HTML, an event stream), each with its schema. */
  readonly content?: Readonly<Record<string, z.ZodType>>;
}

/**
 * One route of the API: where it is, what it reads and what it answers. {@link Api.route} serves
 * it and describes it in `GET /api/openapi.json` from these same schemas, so the description
 * cannot say something the route does not check.
 */
export interface RouteDefinition {
  readonly method: 'get' | 'post' | 'put' | 'delete';
  /** The path in OpenAPI's form: `/api/runs/{id}`. */
  readonly path: string;
  /** A stable name for generated clients: `listRuns`, `cancelRun`. */
  readonly operationId: string;
  /** The group the route is listed under: `runs`, `dlq`, ... */
  readonly tag: string;
  readonly summary: string;
  readonly description?: string;
  /** Served without a token, as `GET /healthz` (it still passes the `Host` check). */
  readonly public?: boolean;
  /** The path parameters. */
  readonly params?: z.ZodObject;
  /** The query string; a field whose schema is an array may repeat (`?state=a&state=b`). */
  readonly query?: z.ZodObject;
  /**
   * The JSON body. An empty body is read as `undefined` when the schema accepts that, else as
   * `{}`, so a missing field is named rather than the body.
   */
  readonly body?: z.ZodType;
  /** The answers by status. */
  readonly answers: Readonly<Record<number, Answer>>;
  /**
   * The errors the route itself may answer. Every route may also answer 403 (the `Host` and
   * cross-site checks) and 500; every route but a public one 401.
   */
  readonly errors?: readonly ErrorStatus[];
}

type Parsed<S> = S extends z.ZodType ? z.output<S> : undefined;

/** What a handler receives: the parsed path parameters, query and body. */
export interface RouteInput<R extends RouteDefinition> {
  readonly params: Parsed<R['params']>;
  readonly query: Parsed<R['query']>;
  readonly body: Parsed<R['body']>;
}

/** A value as a handler may hand it over: any readonly form of the schema's type. */
export type Frozen<T> = T extends Date
  ? T
  : T extends readonly (infer U)[]
    ? readonly Frozen<U>[]
    : T extends object
      ? { readonly [K in keyof T]: Frozen<T[K]> }
      : T;

/** A JSON answer of a route: one of its statuses with a body of that status' schema. */
export type JsonReply<R extends RouteDefinition> = {
  [S in keyof R['answers']]: R['answers'][S] extends { body: infer B extends z.ZodType }
    ? {
        readonly status: S;
        readonly body: Frozen<z.output<B>>;
        readonly headers?: Readonly<Record<string, string>>;
      }
    : never;
}[keyof R['answers']];

/** An error the route declares in `errors`, answered by the handler itself. */
export type ErrorReply<R extends RouteDefinition> = R['errors'] extends readonly (infer E)[]
  ? { readonly status: E; readonly body: ErrorBody }
  : never;

/**
 * What a handler returns: a JSON answer of its own statuses or of its declared errors, or a
 * Response of its own (text, HTML, a stream). Errors thrown are answered by the error mapping.
 */
export type RouteReply<R extends RouteDefinition> = JsonReply<R> | ErrorReply<R> | Response;

/** A route's handler. */
export type RouteHandler<R extends RouteDefinition> = (
  input: RouteInput<R>,
  c: Context<AppEnv>,
) => RouteReply<R> | Promise<RouteReply<R>>;

/** Whether a query field takes repeated values: its schema reads an array. */
function isRepeatable(schema: z.ZodType): boolean {
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodDefault) {
    return isRepeatable(schema.unwrap() as z.ZodType);
  }
  if (schema instanceof z.ZodPipe) return isRepeatable(schema.in as z.ZodType);
  return schema instanceof z.ZodArray;
}

/** A route as the description shows it. */
function toRouteConfig(route: RouteDefinition): RouteConfig {
  const responses: Record<string, ResponseConfig> = {};
  for (const [status, answer] of Object.entries(route.answers)) {
    const content = {
      ...(answer.body ? { 'application/json': answer.body } : {}),
      ...answer.content,
    };
    responses[status] = {
      description: answer.description,
      content: Object.fromEntries(Object.entries(content).map(([t, schema]) => [t, { schema }])),
    };
  }
  const errors: ErrorStatus[] = [...(route.errors ?? []), 403, 500];
  if (!route.public) errors.push(401);
  const body = route.body;
  return {
    method: route.method,
    path: route.path,
    operationId: route.operationId,
    tags: [route.tag],
    summary: route.summary,
    ...(route.description === undefined ? {} : { description: route.description }),
    ...(route.public ? { security: [] } : {}),
    request: {
      ...(route.params ? { params: route.params } : {}),
      ...(route.query ? { query: route.query } : {}),
      ...(body
        ? {
            body: {
              required: !body.safeParse(undefined).success,
              content: { 'application/json': { schema: body } },
            },
          }
        : {}),
    },
    responses: { ...responses, ...errorResponses(errors) },
  };
}

/**
 * The API's routes, each served on the Hono app and described in one registry. Every route of
 * the server goes through {@link Api.route}; the API description test fails for a route the
 * registry does not hold.
 */
export class Api {
  private readonly registry = new OpenAPIRegistry();
  private built: ApiDescription | undefined;

  constructor(private readonly app: Hono<AppEnv>) {}

  /** The OpenAPI 3.1 document of every route, built once all are added. */
  description(): ApiDescription {
    return (this.built ??= buildApiDescription(this.registry));
  }

  /**
   * Serves `route` with `handler`, after parsing its path parameters, query and body with the
   * route's schemas (a ValidationError, 400, names each bad field), and describes it.
   */
  route<const R extends RouteDefinition>(route: R, handler: NoInfer<RouteHandler<R>>): void {
    if (this.built) throw new Error(`route ${route.path} added after the description was built`);
    this.registry.registerPath(toRouteConfig(route));
    const { params, query, body } = route;
    const repeatable = query
      ? Object.entries(query.shape)
          .filter(([, schema]) => isRepeatable(schema as z.ZodType))
          .map(([name]) => name)
      : [];
    const bodyOptional = body?.safeParse(undefined).success ?? true;
    const path = route.path.replaceAll(/\{([^}]+)\}/g, ':$1');
    this.app.on(route.method.toUpperCase(), path, async (c) => {
      let read: unknown;
      if (body) {
        read = await readJsonBody(c.req.raw);
        if (read === undefined && !bodyOptional) read = {};
      }
      const input = {
        params: params ? parseRequest(params, c.req.param(), 'path') : undefined,
        query: query ? parseRequest(query, queryObject(c, repeatable), 'query') : undefined,
        body: body ? parseRequest(body, read, 'body') : undefined,
      } as RouteInput<R>;
      const reply = (await handler(input, c)) as
        Response | { status: number; body: unknown; headers?: Record<string, string> };
      if (reply instanceof Response) return reply;
      return c.json(reply.body, reply.status as ContentfulStatusCode, reply.headers);
    });
  }
}
