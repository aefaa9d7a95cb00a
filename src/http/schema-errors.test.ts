import { describe, expect, it } from 'vitest';
import { type SchemaIssue, schemaFieldErrors } from './schema-errors.ts';

describe('schemaFieldErrors', () => {
  it('names every allowed value of a union of constants in one error', () => {
    const issues: SchemaIssue[] = [
      { instancePath: '/isSafe', keyword: 'const', params: { allowedValue: 'true' } },
      { instancePath: '/isSafe', keyword: 'const', params: { allowedValue: 'false' } },
      { instancePath: '/isSafe', keyword: 'anyOf', params: {}, message: 'must match a schema' },
      { instancePath: '', keyword: 'required', params: { missingProperty: 'chain' } },
    ];
    expect(schemaFieldErrors(issues, 'querystring')).toEqual([
      { field: 'isSafe', message: 'must be one of "true", "false"' },
      { field: 'chain', message: 'is required' },
    ]);
  });

  it('keeps each error of a path that failed more than constants', () => {
    const issues: SchemaIssue[] = [
      { instancePath: '/amount', keyword: 'type', params: {}, message: 'must be string' },
      {
        instancePath: '/amount',
        keyword: 'const',
        params: { allowedValue: 'max' },
        message: 'must be equal to constant',
      },
      { instancePath: '/amount', keyword: 'anyOf', params: {}, message: 'must match a schema' },
    ];
    expect(schemaFieldErrors(issues, 'body')).toEqual([
      { field: 'amount', message: 'must be string' },
      { field: 'amount', message: 'must be equal to constant' },
      { field: 'amount', message: 'must match a schema' },
    ]);
  });
});
