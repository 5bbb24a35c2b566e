import { REQUEST_FIELDS } from '@platform-api/sdk';

export interface InputRule {
  required: boolean;
  /** The API takes whole numbers only. */
  integer: boolean;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  /** The API's regular expression (the browser's `pattern` attribute takes its body). */
  pattern?: string;
}

/**
 * What the service will check of one request body field (`REQUEST_FIELDS`, generated from the
 * OpenAPI document), for a form to check first. An unknown operation or field is the console's
 * own bug: it throws, and the browser tests see the page fail.
 */
export function ruleOf(operation: string, field: string): InputRule {
  const rule = REQUEST_FIELDS[operation]?.[field];
  if (rule === undefined) throw new Error(`the API has no field ${field} in ${operation}`);
  return {
    required: rule.required === true,
    integer: rule.type === 'integer',
    minLength: rule.minLength,
    maxLength: rule.maxLength,
    minimum: rule.minimum,
    maximum: rule.maximum,
    pattern: rule.pattern?.replace(/^\^/, '').replace(/\$$/, ''),
  };
}
