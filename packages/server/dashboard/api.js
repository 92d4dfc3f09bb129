// Calls to the server's HTTP API, with the credentials and token a change needs.

export class ApiError extends Error {
  constructor(status, body) {
    super(body?.error?.message ?? `HTTP ${status}`);
    this.status = status;
    this.code = body?.error?.code;
    this.reason = body?.error?.reason;
  }
}

let session;

/**
 * The token to send as Bearer on changes, or undefined on a server without one. The server
 * hands it back to this page's own script for the Basic credentials the browser holds
 * (`GET /api/session`): those alone only read, so a page elsewhere that makes the browser send
 * them changes nothing. Asked once; asked again after a failure.
 */
function bearer() {
  session ??= fetch('/api/session', { credentials: 'same-origin' })
    .then((response) => (response.ok ? response.json() : Promise.reject(new Error('no session'))))
    .then((body) => body.bearer ?? undefined)
    .catch((error) => {
      session = undefined;
      throw error;
    });
  return session;
}

/**
 * Calls the API; the browser sends the credentials it was given for this origin. A change is
 * always declared JSON (an empty body too) and carries the token as Bearer.
 */
export async function api(path, options = {}) {
  const init = { method: options.method ?? 'GET', credentials: 'same-origin', headers: {} };
  if (init.method !== 'GET') {
    init.headers['Content-Type'] = 'application/json';
    if (options.body !== undefined) init.body = JSON.stringify(options.body);
    const token = await bearer();
    if (token) init.headers.Authorization = `Bearer ${token}`;
  }
  const response = await fetch(path, init);
  const body = await response.json().catch(() => undefined);
  if (!response.ok) throw new ApiError(response.status, body);
  return body;
}

/** A refused action's message, with the rule's reason when there is one. */
export function describeError(error) {
  if (error instanceof ApiError && error.status === 409) {
    return `refused (${error.code}, ${error.reason}): ${error.message}`;
  }
  return error.message;
}
