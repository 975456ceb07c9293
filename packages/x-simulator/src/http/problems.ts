import type { NamingKeys } from '../fields/field-catalog';

/** A finished answer: status, JSON body and its content type. */
export interface XAnswer {
  status: number;
  body: unknown;
  contentType?: string;
}

/** One entry of an invalid-request problem's `errors`, naming the parameter and value X refused. */
export interface ParameterError {
  parameters: Record<string, string[]>;
  message: string;
}

const PROBLEM = 'application/problem+json';

/** X's error bodies, with problem `type` URLs in the configured spelling (api.twitter.com in 2.166, api.x.com in 2.167). */
export class Problems {
  constructor(private readonly keys: NamingKeys) {}

  invalidRequest(errors: ParameterError[]): XAnswer {
    return {
      status: 400,
      contentType: PROBLEM,
      body: {
        errors,
        title: 'Invalid Request',
        detail: 'One or more parameters to your request was invalid.',
        type: `${this.keys.problemBase}invalid-request`,
      },
    };
  }

  unauthorized(): XAnswer {
    return { status: 401, contentType: PROBLEM, body: { title: 'Unauthorized', type: 'about:blank', status: 401, detail: 'Unauthorized' } };
  }

  unsupportedAuthentication(): XAnswer {
    return {
      status: 403,
      contentType: PROBLEM,
      body: {
        title: 'Unsupported Authentication',
        detail:
          'Authenticating with OAuth 2.0 Application-Only is forbidden for this endpoint.  Supported authentication types are [OAuth 1.0a User Context, OAuth 2.0 User Context].',
        type: `${this.keys.problemBase}unsupported-authentication`,
        status: 403,
      },
    };
  }

  rateLimited(shape: 'code88' | 'problem'): XAnswer {
    if (shape === 'code88') return { status: 429, body: { errors: [{ code: 88, message: 'Rate limit exceeded' }] } };
    return { status: 429, contentType: PROBLEM, body: { title: 'Too Many Requests', detail: 'Too Many Requests', type: 'about:blank', status: 429 } };
  }

  usageCapped(): XAnswer {
    return {
      status: 429,
      contentType: PROBLEM,
      body: {
        title: 'UsageCapExceeded',
        detail: 'Usage cap exceeded: Monthly product cap',
        type: `${this.keys.problemBase}usage-capped`,
        period: 'Monthly',
        scope: 'Product',
        status: 429,
      },
    };
  }

  unavailable(): XAnswer {
    return { status: 503, contentType: PROBLEM, body: { title: 'Service Unavailable', detail: 'Service Unavailable', type: 'about:blank', status: 503 } };
  }

  internalError(): XAnswer {
    return { status: 500, contentType: PROBLEM, body: { title: 'Internal Server Error', detail: 'Internal Server Error', type: 'about:blank', status: 500 } };
  }

  routeNotFound(): XAnswer {
    return { status: 404, contentType: PROBLEM, body: { title: 'Not Found', detail: 'Sorry, that page does not exist', type: 'about:blank', status: 404 } };
  }

  /** A partial error beside (or instead of) `data` in a 200: the resource does not exist. */
  resourceNotFound(resourceType: 'tweet' | 'user', parameter: string, value: string): Record<string, unknown> {
    return {
      value,
      detail: `Could not find ${resourceType} with ${parameter}: [${value}].`,
      title: 'Not Found Error',
      resource_type: resourceType,
      parameter,
      resource_id: value,
      type: `${this.keys.problemBase}resource-not-found`,
    };
  }
}
