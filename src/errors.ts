/**
 * Domain errors. Each carries the HTTP status it maps to and a stable machine `code`; the one
 * Fastify error handler turns them into the `{statusCode, message, error}` envelope. Messages
 * are short, safe to show a caller, and listed in docs/errors.md.
 */

export interface FieldError {
  readonly field: string;
  readonly message: string;
}

export class AppError extends Error {
  readonly statusCode: number;
  readonly code: string;
  readonly errors: readonly FieldError[] | undefined;
  /** Response headers the error needs (e.g. `Retry-After`). */
  readonly headers: Readonly<Record<string, string>>;
  /** Extra members of the body beside the envelope's, where the reference API has them. */
  readonly details: Readonly<Record<string, unknown>>;

  constructor(
    statusCode: number,
    code: string,
    message: string,
    options: {
      errors?: readonly FieldError[];
      headers?: Record<string, string>;
      details?: Record<string, unknown>;
    } = {},
  ) {
    super(message);
    this.name = new.target.name;
    this.statusCode = statusCode;
    this.code = code;
    this.errors = options.errors;
    this.headers = options.headers ?? {};
    this.details = options.details ?? {};
  }
}

export class BadRequestError extends AppError {
  constructor(code: string, message: string, errors?: readonly FieldError[]) {
    super(400, code, message, errors ? { errors } : {});
  }
}

/** Validation of input beyond what the route schema can express; same envelope as schema errors. */
export class ValidationError extends BadRequestError {
  constructor(errors: readonly FieldError[]) {
    super('validation_failed', VALIDATION_FAILED, errors);
  }
}

export const VALIDATION_FAILED = 'Validation failed';

export class UnauthorizedError extends AppError {
  constructor(code: string, message: string) {
    super(401, code, message);
  }
}

export class ForbiddenError extends AppError {
  constructor(code: string, message: string) {
    super(403, code, message);
  }
}

export class NotFoundError extends AppError {
  constructor(code: string, message: string) {
    super(404, code, message);
  }
}

export class ConflictError extends AppError {
  constructor(code: string, message: string) {
    super(409, code, message);
  }
}
