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

  /** 403 for the wrong kind of token: an app token on a user-context endpoint, or a user token on an app-only one. */
  unsupportedAuthentication(refused: 'app' | 'user' = 'app'): XAnswer {
    const detail =
      refused === 'app'
        ? 'Authenticating with OAuth 2.0 Application-Only is forbidden for this endpoint.  Supported authentication types are [OAuth 1.0a User Context, OAuth 2.0 User Context].'
        : 'Authenticating with OAuth 2.0 User Context is forbidden for this endpoint.  Supported authentication types are [OAuth 2.0 Application-Only].';
    return {
      status: 403,
      contentType: PROBLEM,
      body: { title: 'Unsupported Authentication', detail, type: `${this.keys.problemBase}unsupported-authentication`, status: 403 },
    };
  }

  /** ConnectionExceptionProblem: 409 RuleConfigurationIssue (no rules), 429 TooManyConnections (one connection per app). */
  streamingConnection(issue: 'RuleConfigurationIssue' | 'TooManyConnections'): XAnswer {
    const status = issue === 'TooManyConnections' ? 429 : 409;
    const detail =
      issue === 'TooManyConnections'
        ? 'This stream is currently at the maximum allowed connection limit.'
        : 'You must define rules to create a filtered stream connection.';
    return {
      status,
      contentType: PROBLEM,
      body: { title: 'ConnectionException', detail, connection_issue: issue, type: `${this.keys.problemBase}streaming-connection`, status },
    };
  }

  /** The error line X writes into an open stream before dropping it for operational reasons (OperationalDisconnectProblem). */
  operationalDisconnect(): Record<string, unknown> {
    return {
      errors: [
        {
          title: 'operational-disconnect',
          disconnect_type: 'OperationalDisconnect',
          detail: 'This stream has been disconnected for operational reasons.',
          type: `${this.keys.problemBase}operational-disconnect`,
        },
      ],
    };
  }

  /** Per-rule entries of a rules answer's `errors`. */
  invalidRule(value: string, message: string): Record<string, unknown> {
    return { value, details: [message], title: 'UnprocessableEntity', type: `${this.keys.problemBase}invalid-rules` };
  }

  duplicateRule(value: string, id: string): Record<string, unknown> {
    return { value, id, title: 'DuplicateRule', type: `${this.keys.problemBase}duplicate-rules` };
  }

  ruleCap(cap: number): Record<string, unknown> {
    return { title: 'RulesCapExceeded', detail: `Rule cap exceeded: at most ${cap} rules per app`, type: `${this.keys.problemBase}rule-cap` };
  }

  ruleNotFound(id: string): Record<string, unknown> {
    return { value: id, title: 'Not Found Error', detail: `Rule ${id} does not exist`, type: `${this.keys.problemBase}resource-not-found`, resource_type: 'rule', resource_id: id };
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
