import type { FastifyInstance, HTTPMethods } from 'fastify';
import type { CredentialKind } from '../http/principal.ts';

export interface RouteEntry {
  readonly method: HTTPMethods;
  readonly url: string;
  /** Credentials accepted; undefined for public routes. */
  readonly auth: readonly CredentialKind[] | undefined;
  /** With `auth`: a caller may also send none. */
  readonly authOptional: boolean;
  /** Left out of the OpenAPI document (the document itself, the docs page). */
  readonly hidden: boolean;
}

/**
 * Every route the app serves, recorded as it is added. Tests walk it to check that each route
 * is documented and authenticated, so a new route cannot slip through unchecked.
 */
export function recordRoutes(app: FastifyInstance): readonly RouteEntry[] {
  const table: RouteEntry[] = [];
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (method === 'HEAD') continue;
      table.push({
        method,
        url: route.url,
        auth: route.config?.auth,
        authOptional: route.config?.authOptional === true,
        hidden: (route.schema as { hide?: boolean } | undefined)?.hide === true,
      });
    }
  });
  return table;
}
