import type { ApiPaths } from '../../api/client.js';

type AuditPage = ApiPaths['/v1/audit']['get']['responses'][200]['content']['application/json'];
export type AuditEvent = AuditPage['items'][number];
export type AuditVerdict = ApiPaths['/v1/audit/verify']['get']['responses'][200]['content']['application/json'];
