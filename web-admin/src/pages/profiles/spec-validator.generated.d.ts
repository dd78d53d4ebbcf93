// Types of spec-validator.generated.js, the profile spec's check compiled by ajv (npm run web:api).
import type { SchemaCheck } from './schema-check.js';

export declare const validate: SchemaCheck;
export default validate;
