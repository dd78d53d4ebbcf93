/**
 * The controller's REST API as TypeScript types, generated from its OpenAPI document by
 * web-admin/scripts/api-types.ts. Do not edit: run `npm run web:api` after changing a route's schemas.
 */

export interface paths {
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Liveness, with the state of the database and the job queue */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            checks: {
                                database: {
                                    /** @description Why the check failed; never a credential */
                                    error?: string;
                                    latencyMs: number;
                                    ok: boolean;
                                };
                                tasks: {
                                    /** @description Why the check failed; never a credential */
                                    error?: string;
                                    latencyMs: number;
                                    ok: boolean;
                                };
                            };
                            /** @description Liveness: true whenever the process answers */
                            ok: boolean;
                            /** @description `degraded` while the database or Redis does not answer; streams stay open and work is retried */
                            status: "ok" | "degraded";
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Prometheus metrics (needs a read token) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Readiness for load balancers: 503 while the database or the job queue does not answer */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            checks: {
                                database: {
                                    /** @description Why the check failed; never a credential */
                                    error?: string;
                                    latencyMs: number;
                                    ok: boolean;
                                };
                                tasks: {
                                    /** @description Why the check failed; never a credential */
                                    error?: string;
                                    latencyMs: number;
                                    ok: boolean;
                                };
                            };
                            /** @description Liveness: true whenever the process answers */
                            ok: boolean;
                            /** @description `degraded` while the database or Redis does not answer; streams stay open and work is retried */
                            status: "ok" | "degraded";
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            checks: {
                                database: {
                                    /** @description Why the check failed; never a credential */
                                    error?: string;
                                    latencyMs: number;
                                    ok: boolean;
                                };
                                tasks: {
                                    /** @description Why the check failed; never a credential */
                                    error?: string;
                                    latencyMs: number;
                                    ok: boolean;
                                };
                            };
                            /** @description Liveness: true whenever the process answers */
                            ok: boolean;
                            /** @description `degraded` while the database or Redis does not answer; streams stay open and work is retried */
                            status: "ok" | "degraded";
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/accounts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List operator accounts */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            items: {
                                /** Format: date-time */
                                createdAt: string;
                                createdBy: string;
                                /** @description A disabled account cannot sign in; its sessions ended when it was disabled */
                                disabled: boolean;
                                /** Format: date-time */
                                lastSignInAt: string | null;
                                name: string;
                                /** Role */
                                role: "read" | "write" | "admin";
                            }[];
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        put?: never;
        /** Create an operator account with a password the admin sets */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description Letters, digits and . _ @ -, starting with a letter or digit */
                        name: string;
                        /** @description At least 12 characters, no control characters */
                        password: string;
                        /** Role */
                        role: "read" | "write" | "admin";
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** Format: date-time */
                            createdAt: string;
                            createdBy: string;
                            /** @description A disabled account cannot sign in; its sessions ended when it was disabled */
                            disabled: boolean;
                            /** Format: date-time */
                            lastSignInAt: string | null;
                            name: string;
                            /** Role */
                            role: "read" | "write" | "admin";
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/accounts/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Delete an account; its sessions end */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Letters, digits and . _ @ -, starting with a letter or digit */
                    name: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        options?: never;
        head?: never;
        /**
         * Change an account's role, or disable or enable it
         * @description Disabling an account, or changing its role, ends its sessions at once.
         */
        patch: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Letters, digits and . _ @ -, starting with a letter or digit */
                    name: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        disabled?: boolean;
                        /** Role */
                        role?: "read" | "write" | "admin";
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** Format: date-time */
                            createdAt: string;
                            createdBy: string;
                            /** @description A disabled account cannot sign in; its sessions ended when it was disabled */
                            disabled: boolean;
                            /** Format: date-time */
                            lastSignInAt: string | null;
                            name: string;
                            /** Role */
                            role: "read" | "write" | "admin";
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        trace?: never;
    };
    "/v1/accounts/{name}/password": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Reset an account's password; its sessions end */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Letters, digits and . _ @ -, starting with a letter or digit */
                    name: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description At least 12 characters, no control characters */
                        password: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/alert-rules": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Alert rules (the shipped defaults and the admins’ own) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            items: {
                                enabled: boolean;
                                /** @description Its alerts unresolved now */
                                firing: number;
                                forSeconds: number;
                                groupBy: string | null;
                                groupIntervalSeconds: number;
                                groupWaitSeconds: number;
                                /**
                                 * AlertKind
                                 * @description What the rule watches
                                 * @enum {string}
                                 */
                                kind: "router_offline" | "drift_detected" | "apply_failed" | "rollout_paused" | "certificate_expiring" | "audit_chain_broken" | "dependency_unreachable";
                                name: string;
                                params: {
                                    days?: number;
                                    intervalSeconds?: number;
                                };
                                selector: unknown | (never | null);
                                /**
                                 * AlertSeverity
                                 * @description info, warning or critical
                                 * @enum {string}
                                 */
                                severity: "info" | "warning" | "critical";
                                /** Format: date-time */
                                updatedAt: string;
                            }[];
                        };
                    };
                };
            };
        };
        put?: never;
        /** Create an alert rule */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        enabled?: boolean;
                        /** @description How long the condition must hold before the alert fires; a flap inside it fires nothing */
                        forSeconds?: number;
                        /** @description Router kinds: group alerts by the tag with this prefix ("site" groups site:ams apart from site:fra); null: one group */
                        groupBy?: string | null;
                        /** @description A group's later changes are sent at most this often */
                        groupIntervalSeconds?: number;
                        /** @description A group's first notification waits this long after its first alert for the ones that follow */
                        groupWaitSeconds?: number;
                        /**
                         * AlertKind
                         * @description What the rule watches
                         * @enum {string}
                         */
                        kind: "router_offline" | "drift_detected" | "apply_failed" | "rollout_paused" | "certificate_expiring" | "audit_chain_broken" | "dependency_unreachable";
                        /** @description Lower-case letters, digits and dashes */
                        name: string;
                        params?: {
                            /** @description certificate_expiring: within how many days */
                            days?: number;
                            /** @description audit_chain_broken: how often the chain is verified */
                            intervalSeconds?: number;
                        };
                        /** @description Which routers the rule covers (router kinds only); null: every router */
                        selector?: {
                            /**
                             * @description Every router (must be said explicitly)
                             * @enum {boolean}
                             */
                            all?: true;
                            /** @description Router ids */
                            ids?: string[];
                            /**
                             * @deprecated
                             * @description Old spelling of `release`, accepted until 0.3. OpenWrt releases or release prefixes: "23.05" matches 23.05.x
                             */
                            openwrt?: string[];
                            /** @description OpenWrt releases or release prefixes: "23.05" matches 23.05.x */
                            release?: string[];
                            /** @description SoCs, e.g. MT7621 */
                            soc?: string[];
                            /** @description Tags the router must all carry */
                            tags?: string[];
                        } | null;
                        /**
                         * AlertSeverity
                         * @description info, warning or critical
                         * @enum {string}
                         */
                        severity: "info" | "warning" | "critical";
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            enabled: boolean;
                            /** @description Its alerts unresolved now */
                            firing: number;
                            forSeconds: number;
                            groupBy: string | null;
                            groupIntervalSeconds: number;
                            groupWaitSeconds: number;
                            /**
                             * AlertKind
                             * @description What the rule watches
                             * @enum {string}
                             */
                            kind: "router_offline" | "drift_detected" | "apply_failed" | "rollout_paused" | "certificate_expiring" | "audit_chain_broken" | "dependency_unreachable";
                            name: string;
                            params: {
                                days?: number;
                                intervalSeconds?: number;
                            };
                            selector: unknown | (never | null);
                            /**
                             * AlertSeverity
                             * @description info, warning or critical
                             * @enum {string}
                             */
                            severity: "info" | "warning" | "critical";
                            /** Format: date-time */
                            updatedAt: string;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/alert-rules/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One alert rule */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    name: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            enabled: boolean;
                            /** @description Its alerts unresolved now */
                            firing: number;
                            forSeconds: number;
                            groupBy: string | null;
                            groupIntervalSeconds: number;
                            groupWaitSeconds: number;
                            /**
                             * AlertKind
                             * @description What the rule watches
                             * @enum {string}
                             */
                            kind: "router_offline" | "drift_detected" | "apply_failed" | "rollout_paused" | "certificate_expiring" | "audit_chain_broken" | "dependency_unreachable";
                            name: string;
                            params: {
                                days?: number;
                                intervalSeconds?: number;
                            };
                            selector: unknown | (never | null);
                            /**
                             * AlertSeverity
                             * @description info, warning or critical
                             * @enum {string}
                             */
                            severity: "info" | "warning" | "critical";
                            /** Format: date-time */
                            updatedAt: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        /** Remove an alert rule and its alerts */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    name: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        options?: never;
        head?: never;
        /** Change an alert rule (the fields given) */
        patch: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    name: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        enabled?: boolean;
                        /** @description How long the condition must hold before the alert fires; a flap inside it fires nothing */
                        forSeconds?: number;
                        /** @description Router kinds: group alerts by the tag with this prefix ("site" groups site:ams apart from site:fra); null: one group */
                        groupBy?: string | null;
                        /** @description A group's later changes are sent at most this often */
                        groupIntervalSeconds?: number;
                        /** @description A group's first notification waits this long after its first alert for the ones that follow */
                        groupWaitSeconds?: number;
                        params?: {
                            /** @description certificate_expiring: within how many days */
                            days?: number;
                            /** @description audit_chain_broken: how often the chain is verified */
                            intervalSeconds?: number;
                        };
                        /** @description Which routers the rule covers (router kinds only); null: every router */
                        selector?: {
                            /**
                             * @description Every router (must be said explicitly)
                             * @enum {boolean}
                             */
                            all?: true;
                            /** @description Router ids */
                            ids?: string[];
                            /**
                             * @deprecated
                             * @description Old spelling of `release`, accepted until 0.3. OpenWrt releases or release prefixes: "23.05" matches 23.05.x
                             */
                            openwrt?: string[];
                            /** @description OpenWrt releases or release prefixes: "23.05" matches 23.05.x */
                            release?: string[];
                            /** @description SoCs, e.g. MT7621 */
                            soc?: string[];
                            /** @description Tags the router must all carry */
                            tags?: string[];
                        } | null;
                        /**
                         * AlertSeverity
                         * @description info, warning or critical
                         * @enum {string}
                         */
                        severity?: "info" | "warning" | "critical";
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            enabled: boolean;
                            /** @description Its alerts unresolved now */
                            firing: number;
                            forSeconds: number;
                            groupBy: string | null;
                            groupIntervalSeconds: number;
                            groupWaitSeconds: number;
                            /**
                             * AlertKind
                             * @description What the rule watches
                             * @enum {string}
                             */
                            kind: "router_offline" | "drift_detected" | "apply_failed" | "rollout_paused" | "certificate_expiring" | "audit_chain_broken" | "dependency_unreachable";
                            name: string;
                            params: {
                                days?: number;
                                intervalSeconds?: number;
                            };
                            selector: unknown | (never | null);
                            /**
                             * AlertSeverity
                             * @description info, warning or critical
                             * @enum {string}
                             */
                            severity: "info" | "warning" | "critical";
                            /** Format: date-time */
                            updatedAt: string;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        trace?: never;
    };
    "/v1/alerts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Alerts, newest first, with keyset pagination */
        get: {
            parameters: {
                query: {
                    /** @description nextCursor of the previous page */
                    cursor?: string;
                    limit: number;
                    /** @description A router's id: its alerts only */
                    router?: string;
                    /** @description The rule's name */
                    rule?: string;
                    /** @description info, warning or critical */
                    severity?: "info" | "warning" | "critical";
                    /** @description `active`: every unresolved alert (firing, acknowledged or silenced) */
                    status?: "firing" | "acknowledged" | "silenced" | "resolved" | "active";
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            items: {
                                acknowledged: {
                                    /** Format: date-time */
                                    at: string;
                                    by: string;
                                    note: string | null;
                                } | null;
                                /** Format: date-time */
                                firedAt: string;
                                /** @description The notification group, e.g. site:ams */
                                group: string;
                                id: string;
                                /** Format: date-time */
                                resolvedAt: string | null;
                                rule: {
                                    /**
                                     * AlertKind
                                     * @description What the rule watches
                                     * @enum {string}
                                     */
                                    kind: "router_offline" | "drift_detected" | "apply_failed" | "rollout_paused" | "certificate_expiring" | "audit_chain_broken" | "dependency_unreachable";
                                    name: string;
                                };
                                /**
                                 * AlertSeverity
                                 * @description info, warning or critical
                                 * @enum {string}
                                 */
                                severity: "info" | "warning" | "critical";
                                silence: {
                                    /** Format: date-time */
                                    endsAt: string;
                                    id: string;
                                } | null;
                                /** Format: date-time */
                                since: string;
                                /**
                                 * AlertStatus
                                 * @description firing; acknowledged (an operator is on it); silenced (a silence holds its notifications back); resolved (the condition cleared)
                                 * @enum {string}
                                 */
                                status: "firing" | "acknowledged" | "silenced" | "resolved";
                                subject: {
                                    id: string;
                                    /** @description router, rollout, audit or replica */
                                    kind: string;
                                    name: string;
                                };
                                summary: string;
                            }[];
                            nextCursor: string | null;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/alerts/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One alert */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            acknowledged: {
                                /** Format: date-time */
                                at: string;
                                by: string;
                                note: string | null;
                            } | null;
                            /** Format: date-time */
                            firedAt: string;
                            /** @description The notification group, e.g. site:ams */
                            group: string;
                            id: string;
                            /** Format: date-time */
                            resolvedAt: string | null;
                            rule: {
                                /**
                                 * AlertKind
                                 * @description What the rule watches
                                 * @enum {string}
                                 */
                                kind: "router_offline" | "drift_detected" | "apply_failed" | "rollout_paused" | "certificate_expiring" | "audit_chain_broken" | "dependency_unreachable";
                                name: string;
                            };
                            /**
                             * AlertSeverity
                             * @description info, warning or critical
                             * @enum {string}
                             */
                            severity: "info" | "warning" | "critical";
                            silence: {
                                /** Format: date-time */
                                endsAt: string;
                                id: string;
                            } | null;
                            /** Format: date-time */
                            since: string;
                            /**
                             * AlertStatus
                             * @description firing; acknowledged (an operator is on it); silenced (a silence holds its notifications back); resolved (the condition cleared)
                             * @enum {string}
                             */
                            status: "firing" | "acknowledged" | "silenced" | "resolved";
                            subject: {
                                id: string;
                                /** @description router, rollout, audit or replica */
                                kind: string;
                                name: string;
                            };
                            summary: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/alerts/{id}/acknowledge": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Acknowledge a firing alert: an operator is on it (its group stops announcing it) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            /** @description What the operator is doing about it */
            requestBody: {
                content: {
                    "application/json": {
                        note?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            acknowledged: {
                                /** Format: date-time */
                                at: string;
                                by: string;
                                note: string | null;
                            } | null;
                            /** Format: date-time */
                            firedAt: string;
                            /** @description The notification group, e.g. site:ams */
                            group: string;
                            id: string;
                            /** Format: date-time */
                            resolvedAt: string | null;
                            rule: {
                                /**
                                 * AlertKind
                                 * @description What the rule watches
                                 * @enum {string}
                                 */
                                kind: "router_offline" | "drift_detected" | "apply_failed" | "rollout_paused" | "certificate_expiring" | "audit_chain_broken" | "dependency_unreachable";
                                name: string;
                            };
                            /**
                             * AlertSeverity
                             * @description info, warning or critical
                             * @enum {string}
                             */
                            severity: "info" | "warning" | "critical";
                            silence: {
                                /** Format: date-time */
                                endsAt: string;
                                id: string;
                            } | null;
                            /** Format: date-time */
                            since: string;
                            /**
                             * AlertStatus
                             * @description firing; acknowledged (an operator is on it); silenced (a silence holds its notifications back); resolved (the condition cleared)
                             * @enum {string}
                             */
                            status: "firing" | "acknowledged" | "silenced" | "resolved";
                            subject: {
                                id: string;
                                /** @description router, rollout, audit or replica */
                                kind: string;
                                name: string;
                            };
                            summary: string;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/alerts/summary": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** How many alerts are unresolved, by status and severity (the console badge) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            acknowledged: number;
                            /** @description The firing ones by severity */
                            bySeverity: {
                                critical: number;
                                info: number;
                                warning: number;
                            };
                            /** @description Unresolved, neither acknowledged nor silenced */
                            firing: number;
                            silenced: number;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/apply": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Apply these documents: the plan’s changes and rollouts, in one transaction
         * @description Writes what POST /v1/plan shows for the same documents, marks every resource they name as managed from files, and starts a rollout (through the named RolloutPolicy) for each Assignment or FirmwarePolicy with routers to move. With `expectState` (a saved plan’s `state`) it is refused with 409 `stale_plan` if any resource moved since, naming which; nothing is written then, nor when any document is refused. Applying the same documents again changes nothing.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description The documents of a fleet directory, in file order. An error names one as `/documents/{index}/...` so a client can point at its file and line. The JSON Schema of a document: GET /v1/intent/schema */
                        documents: {
                            [key: string]: unknown;
                        }[];
                        expectState?: {
                            [key: string]: number;
                        };
                        /**
                         * @description Remove what the files managed and no longer name
                         * @default false
                         */
                        prune?: boolean;
                        /** @description The commit or label the files came from, recorded in the audit with every change */
                        source?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            plan: {
                                /** @description Resource changes and rollouts the apply would make; 0: nothing */
                                changes: number;
                                prune: boolean;
                                resources: {
                                    /**
                                     * IntentAction
                                     * @description `update` of a profile writes a new revision; `adopt`: same spec, to be marked managed from files (again); `orphan`: managed from files that no longer name it, kept (apply with prune removes it)
                                     * @enum {string}
                                     */
                                    action: "create" | "update" | "adopt" | "delete" | "unchanged" | "orphan";
                                    diff: {
                                        after?: unknown;
                                        before?: unknown;
                                        op: string;
                                        path: string;
                                    }[];
                                    /** @description Its document's index; null when the files no longer name it */
                                    document: number | null;
                                    /** @description Set when it was changed outside the files since they last wrote it */
                                    drift: string | null;
                                    /**
                                     * IntentKind
                                     * @description A kind of the fleet as code (docs/FLEET-AS-CODE.md)
                                     * @enum {string}
                                     */
                                    kind: "Profile" | "RolloutPolicy" | "Assignment" | "FirmwarePolicy";
                                    /** @description Managed from files: by which apply; null for a resource only the console and API manage */
                                    managed: {
                                        /** Format: date-time */
                                        appliedAt: string;
                                        appliedBy: string;
                                        /** @description The commit or label the apply was given (--source) */
                                        source: string | null;
                                        /** @description The version the files last wrote */
                                        version: number;
                                    } | null;
                                    name: string;
                                    /** @description Assignments and firmware policies: the routers they select and what the apply does to each */
                                    reach: {
                                        counts: {
                                            change: number;
                                            refused: number;
                                            retry: number;
                                            revision: number;
                                            unchanged: number;
                                        };
                                        matched: number;
                                        /** @description The rollout the apply starts; null when every router is there */
                                        rollout: {
                                            policy: string | null;
                                            routers: number;
                                        } | null;
                                        /** @description The first 100 by name; counts cover all */
                                        routers: {
                                            /** @description What it is set to run now: profile@revision, or its release */
                                            from: string | null;
                                            id: string;
                                            name: string;
                                            reason: string | null;
                                            /**
                                             * ReachVerdict
                                             * @description `change`: its plan changes; `revision`: a new revision with the same plan; `retry`: set to run the revision but not running it (its apply failed or never came) and no rollout bringing it, so the apply sends it again, `reason` says what it runs; `unchanged`: already there or on its way in a running rollout; `refused`: the plan (or the image) is refused on it, `reason` says why, and the rollout leaves it out
                                             * @enum {string}
                                             */
                                            verdict: "change" | "revision" | "retry" | "unchanged" | "refused";
                                        }[];
                                        target: string;
                                    } | null;
                                    version: {
                                        live: number | null;
                                        planned: number | null;
                                    };
                                }[];
                                /** @description The version of every resource the plan read ("Profile/home": 3); send it back as `expectState` */
                                state: {
                                    [key: string]: number;
                                };
                            };
                            rollouts: {
                                id: string;
                                /**
                                 * IntentKind
                                 * @description A kind of the fleet as code (docs/FLEET-AS-CODE.md)
                                 * @enum {string}
                                 */
                                kind: "Profile" | "RolloutPolicy" | "Assignment" | "FirmwarePolicy";
                                name: string;
                                routers: number;
                                /** Format: date-time */
                                startAt: string;
                            }[];
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/assignments": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List Assignment resources by name */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            items: {
                                /** @description Managed from files: by which apply; null for a resource only the console and API manage */
                                managed: {
                                    /** Format: date-time */
                                    appliedAt: string;
                                    appliedBy: string;
                                    /** @description The commit or label the apply was given (--source) */
                                    source: string | null;
                                    /** @description The version the files last wrote */
                                    version: number;
                                } | null;
                                name: string;
                                /** @description As stored: every default filled in */
                                spec: unknown;
                                /** Format: date-time */
                                updatedAt: string;
                                version: number;
                            }[];
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/assignments/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One Assignment */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    name: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description Managed from files: by which apply; null for a resource only the console and API manage */
                            managed: {
                                /** Format: date-time */
                                appliedAt: string;
                                appliedBy: string;
                                /** @description The commit or label the apply was given (--source) */
                                source: string | null;
                                /** @description The version the files last wrote */
                                version: number;
                            } | null;
                            name: string;
                            /** @description As stored: every default filled in */
                            spec: unknown;
                            /** Format: date-time */
                            updatedAt: string;
                            version: number;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        /**
         * Create a Assignment or change it (idempotent when the spec is unchanged)
         * @description Send `baseVersion` (the version you read) to change one that exists; otherwise 409.
         */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    name: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        baseVersion?: number;
                        /** @description Routers the selector matches run the profile */
                        spec: {
                            /** @description The profile the routers run */
                            profile: string;
                            /** @description Pin this revision; without it the profile's latest revision */
                            revision?: number;
                            /** @description The RolloutPolicy of the rollouts this assignment starts; default strategy without */
                            rolloutPolicy?: string;
                            selector: {
                                /**
                                 * @description Every router (must be said explicitly)
                                 * @enum {boolean}
                                 */
                                all?: true;
                                /** @description Router ids */
                                ids?: string[];
                                /**
                                 * @deprecated
                                 * @description Old spelling of `release`, accepted until 0.3. OpenWrt releases or release prefixes: "23.05" matches 23.05.x
                                 */
                                openwrt?: string[];
                                /** @description OpenWrt releases or release prefixes: "23.05" matches 23.05.x */
                                release?: string[];
                                /** @description SoCs, e.g. MT7621 */
                                soc?: string[];
                                /** @description Tags the router must all carry */
                                tags?: string[];
                            };
                        };
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            changed: boolean;
                            version: number;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        post?: never;
        /** Remove a Assignment (routers keep what they run) */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    name: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/audit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Audit events, oldest (or newest) first, filtered by router, profile, rollout, command, actor, action and time range */
        get: {
            parameters: {
                query: {
                    action?: string;
                    /** @description e.g. token:admin, agent:<identity>, system */
                    actor?: string;
                    /** @description Command id */
                    command?: string;
                    cursor?: string;
                    from?: string;
                    limit: number;
                    /** @description asc (default): oldest first; desc: newest first, as a timeline reads */
                    order?: "asc" | "desc";
                    /** @description Profile name */
                    profile?: string;
                    /** @description Rollout id */
                    rollout?: string;
                    /** @description Router id: the router's own events, and those of the commands and rollouts that targeted it (their `command.*` and `rollout.*` events, which keep their own target), so who acted on the router, and why, is in its history */
                    router?: string;
                    to?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            items: {
                                action: string;
                                actor: string;
                                after: unknown;
                                at: string;
                                before: unknown;
                                diff: unknown;
                                hash: string;
                                id: string;
                                prevHash: string;
                                requestId: string | null;
                                seq: string;
                                targetId: string | null;
                                /** @description The target's display name, read with the page (names change; the event keeps the id): a router's name, a rollout's profile@revision, a command's kind ("rollback on lyon-1" for one router), an onboarding job's host, a token's name, a profile's or account's own name; null when there is none */
                                targetName: string | null;
                                targetType: string;
                            }[];
                            nextCursor: string | null;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/audit/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Every matching event as JSON lines (application/x-ndjson), streamed
         * @description The events as stored (no `targetName`), oldest first, with the filters of `GET /v1/audit`. A bad filter is a 400 before the first line. An export that fails midway, or runs past the stream time limit, ends with one last line in the error shape ({"error", "message", "requestId"}).
         */
        get: {
            parameters: {
                query?: {
                    action?: string;
                    /** @description e.g. token:admin, agent:<identity>, system */
                    actor?: string;
                    /** @description Command id */
                    command?: string;
                    from?: string;
                    /** @description Profile name */
                    profile?: string;
                    /** @description Rollout id */
                    rollout?: string;
                    /** @description Router id: the router's own events, and those of the commands and rollouts that targeted it (their `command.*` and `rollout.*` events, which keep their own target), so who acted on the router, and why, is in its history */
                    router?: string;
                    to?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/x-ndjson": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/audit/verify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Check the whole hash chain (names the first broken link) and that the history holds the event of everything stored that needs one (lists what lacks it)
         * @description Completeness: every router, profile revision, rollout, API token, onboarding job and command has its creating event, every certificate the event that issued it, every decommissioned router `router.decommissioned`, every revoked API token `api_token.revoked`, every completed or cancelled rollout `rollout.completed` or `rollout.cancelled` (`rollout.aborted` before 0.2).
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            checked: number;
                            firstBroken?: {
                                id: string;
                                reason: string;
                                seq: string;
                            };
                            /** @description What lacks its event, up to 100 per check */
                            missing: {
                                /** @description The subject: a router, revision, rollout, token or job id; a certificate serial */
                                id: string;
                                kind: "router" | "profile_revision" | "rollout" | "api_token" | "certificate" | "onboarding_job" | "command_job" | "account";
                                /** @description For a profile revision: <profile>@<number> */
                                label?: string;
                                /** @description The action of the event it lacks ("a or b": either would do) */
                                missingEvent: string;
                            }[];
                            /** @description How many lack their event in all, listed or not */
                            missingCount: number;
                            ok: boolean;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/certificates/{serial}/revoke": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Revoke one client certificate; a stream it authenticated closes within a second */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    serial: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/channels": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Notification channels, by name */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            items: {
                                /** Format: date-time */
                                createdAt: string;
                                createdBy: string;
                                email?: {
                                    from: string;
                                    host: string;
                                    passwordSet: boolean;
                                    port: number;
                                    /**
                                     * @description implicit: TLS from the first byte (port 465); starttls: STARTTLS required (port 587, the default); none: no TLS, for a relay on this host (a password is then refused unless the host is a loopback address)
                                     * @enum {string}
                                     */
                                    tls: "implicit" | "starttls" | "none";
                                    to: string[];
                                    user?: string;
                                };
                                id: string;
                                /** @enum {string} */
                                kind: "webhook" | "slack" | "email";
                                /** @enum {string} */
                                minSeverity: "info" | "warning" | "critical";
                                name: string;
                                rules: string[];
                                slack?: {
                                    /** @description Only the scheme and host: the URL is a secret */
                                    url: string;
                                };
                                webhook?: {
                                    url: string;
                                };
                            }[];
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        put?: never;
        /**
         * Create a channel; a webhook's signing secret is in this answer only
         * @description Give the settings of exactly one kind: webhook { url }, slack { url } or email { host, port?, tls?, user?, password?, from, to }. Secrets (the signing secret, the Slack URL, the SMTP password) are sealed at rest and never returned afterwards.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            /** @description A channel: give the settings of exactly one kind (webhook, slack, email) */
            requestBody: {
                content: {
                    "application/json": {
                        /** @description E-mail through an SMTP server */
                        email?: {
                            /** Format: email */
                            from: string;
                            /** @description SMTP server */
                            host: string;
                            /** @description Sealed; never shown again */
                            password?: string;
                            /** @description Default: 465, 587 or 25 by tls */
                            port?: number;
                            /**
                             * @description implicit: TLS from the first byte (port 465); starttls: STARTTLS required (port 587, the default); none: no TLS, for a relay on this host (a password is then refused unless the host is a loopback address)
                             * @enum {string}
                             */
                            tls?: "implicit" | "starttls" | "none";
                            to: string[];
                            user?: string;
                        };
                        /**
                         * @description Only alerts of this severity or above (default info)
                         * @enum {string}
                         */
                        minSeverity?: "info" | "warning" | "critical";
                        /** @description The channel's name */
                        name: string;
                        /** @description Only these rules' alerts, by name (default: every rule) */
                        rules?: string[];
                        /** @description A Slack incoming webhook (or one that takes the same message) */
                        slack?: {
                            /** @description The incoming-webhook URL (Slack, Mattermost, Rocket.Chat): a secret, never shown again */
                            url: string;
                        };
                        /** @description A webhook: the notification as JSON, signed with HMAC-SHA256 */
                        webhook?: {
                            /** @description Where the signed JSON is POSTed */
                            url: string;
                        };
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** Format: date-time */
                            createdAt: string;
                            createdBy: string;
                            email?: {
                                from: string;
                                host: string;
                                passwordSet: boolean;
                                port: number;
                                /**
                                 * @description implicit: TLS from the first byte (port 465); starttls: STARTTLS required (port 587, the default); none: no TLS, for a relay on this host (a password is then refused unless the host is a loopback address)
                                 * @enum {string}
                                 */
                                tls: "implicit" | "starttls" | "none";
                                to: string[];
                                user?: string;
                            };
                            id: string;
                            /** @enum {string} */
                            kind: "webhook" | "slack" | "email";
                            /** @enum {string} */
                            minSeverity: "info" | "warning" | "critical";
                            name: string;
                            rules: string[];
                            /** @description A webhook's signing secret (whsec_...): shown in this answer only; receivers verify with it */
                            secret?: string;
                            slack?: {
                                /** @description Only the scheme and host: the URL is a secret */
                                url: string;
                            };
                            webhook?: {
                                url: string;
                            };
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/channels/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A notification channel (never its secret) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The channel's name */
                    name: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** Format: date-time */
                            createdAt: string;
                            createdBy: string;
                            email?: {
                                from: string;
                                host: string;
                                passwordSet: boolean;
                                port: number;
                                /**
                                 * @description implicit: TLS from the first byte (port 465); starttls: STARTTLS required (port 587, the default); none: no TLS, for a relay on this host (a password is then refused unless the host is a loopback address)
                                 * @enum {string}
                                 */
                                tls: "implicit" | "starttls" | "none";
                                to: string[];
                                user?: string;
                            };
                            id: string;
                            /** @enum {string} */
                            kind: "webhook" | "slack" | "email";
                            /** @enum {string} */
                            minSeverity: "info" | "warning" | "critical";
                            name: string;
                            rules: string[];
                            slack?: {
                                /** @description Only the scheme and host: the URL is a secret */
                                url: string;
                            };
                            webhook?: {
                                url: string;
                            };
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        /** Remove a channel; its notifications not yet sent fail, its name is free again */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The channel's name */
                    name: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/channels/{name}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A channel's delivery log: its notifications, newest first, with every attempt */
        get: {
            parameters: {
                query: {
                    limit: number;
                };
                header?: never;
                path: {
                    /** @description The channel's name */
                    name: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description Notifications to the channel, newest first */
                            items: {
                                attempts: number;
                                /** Format: date-time */
                                createdAt: string;
                                /** Format: date-time */
                                deliveredAt: string | null;
                                /** @description Each attempt, the first first */
                                deliveries: {
                                    /** Format: date-time */
                                    at: string;
                                    attempt: number;
                                    durationMs: number;
                                    error: string | null;
                                    /** @enum {string} */
                                    outcome: "delivered" | "retry" | "failed";
                                    statusCode: number | null;
                                }[];
                                /** Format: date-time */
                                nextAttemptAt: string | null;
                                notificationId: string;
                                /** @enum {string} */
                                state: "pending" | "delivered" | "failed";
                                test: boolean;
                                title: string;
                            }[];
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/channels/{name}/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Send a test notification now and answer with the outcome (it is in the delivery log too) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The channel's name */
                    name: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            durationMs: number;
                            error: string | null;
                            notificationId: string;
                            /** @enum {string} */
                            outcome: "delivered" | "retry" | "failed";
                            /** @description The HTTP status, or the SMTP reply code */
                            statusCode: number | null;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/commands": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Commands, newest first, with keyset pagination */
        get: {
            parameters: {
                query: {
                    /** @description nextCursor of the previous page */
                    cursor?: string;
                    kind?: ("reprobe" | "reapply" | "rollback" | "detach" | "check_drift" | "reboot" | "diagnostics") | ("re_probe" | "re_apply");
                    limit: number;
                    state?: "running" | "completed" | "cancelled";
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            items: {
                                cancelledBy: string | null;
                                counts: {
                                    cancelled: number;
                                    failed: number;
                                    offline: number;
                                    queued: number;
                                    refused: number;
                                    sent: number;
                                    succeeded: number;
                                    timed_out: number;
                                };
                                /** Format: date-time */
                                createdAt: string;
                                createdBy: string;
                                /** Format: date-time */
                                deadline: string;
                                /** @description Routers with an outcome (offline ones count once the command has ended) */
                                finished: number;
                                /** Format: date-time */
                                finishedAt: string | null;
                                id: string;
                                /**
                                 * CommandKind
                                 * @description reboot and detach need the admin scope; the others write
                                 * @enum {string}
                                 */
                                kind: "reprobe" | "reapply" | "rollback" | "detach" | "check_drift" | "reboot" | "diagnostics";
                                maxInFlight: number;
                                /** @description The selector as given; { ids: [id] } for a command on one router */
                                selector: unknown;
                                /**
                                 * CommandState
                                 * @enum {string}
                                 */
                                state: "running" | "completed" | "cancelled";
                                timeoutSeconds: number;
                                total: number;
                            }[];
                            nextCursor: string | null;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        put?: never;
        /**
         * Send a command to the routers a selector matches, at most maxInFlight at once
         * @description Every matched router gets a target: queued, or refused with the reason when the controller can tell up front. Offline routers are reported as offline and get the command if they connect before the deadline.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /**
                         * @description An offline router that connects within this many seconds still gets the command
                         * @default 600
                         */
                        deadlineSeconds?: number;
                        kind: ("reprobe" | "reapply" | "rollback" | "detach" | "check_drift" | "reboot" | "diagnostics") | ("re_probe" | "re_apply");
                        /**
                         * @description Routers that have the command and have not answered yet, at most
                         * @default 100
                         */
                        maxInFlight?: number;
                        selector: {
                            /**
                             * @description Every router (must be said explicitly)
                             * @enum {boolean}
                             */
                            all?: true;
                            /** @description Router ids */
                            ids?: string[];
                            /**
                             * @deprecated
                             * @description Old spelling of `release`, accepted until 0.3. OpenWrt releases or release prefixes: "23.05" matches 23.05.x
                             */
                            openwrt?: string[];
                            /** @description OpenWrt releases or release prefixes: "23.05" matches 23.05.x */
                            release?: string[];
                            /** @description SoCs, e.g. MT7621 */
                            soc?: string[];
                            /** @description Tags the router must all carry */
                            tags?: string[];
                        };
                        /**
                         * @description A router with the command that has not answered after this long is timed_out
                         * @default 60
                         */
                        timeoutSeconds?: number;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            cancelledBy: string | null;
                            counts: {
                                cancelled: number;
                                failed: number;
                                offline: number;
                                queued: number;
                                refused: number;
                                sent: number;
                                succeeded: number;
                                timed_out: number;
                            };
                            /** Format: date-time */
                            createdAt: string;
                            createdBy: string;
                            /** Format: date-time */
                            deadline: string;
                            /** @description Routers with an outcome (offline ones count once the command has ended) */
                            finished: number;
                            /** Format: date-time */
                            finishedAt: string | null;
                            id: string;
                            /**
                             * CommandKind
                             * @description reboot and detach need the admin scope; the others write
                             * @enum {string}
                             */
                            kind: "reprobe" | "reapply" | "rollback" | "detach" | "check_drift" | "reboot" | "diagnostics";
                            maxInFlight: number;
                            /** @description The selector as given; { ids: [id] } for a command on one router */
                            selector: unknown;
                            /**
                             * CommandState
                             * @enum {string}
                             */
                            state: "running" | "completed" | "cancelled";
                            timeoutSeconds: number;
                            total: number;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/commands/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A command and its counts per router state */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            cancelledBy: string | null;
                            counts: {
                                cancelled: number;
                                failed: number;
                                offline: number;
                                queued: number;
                                refused: number;
                                sent: number;
                                succeeded: number;
                                timed_out: number;
                            };
                            /** Format: date-time */
                            createdAt: string;
                            createdBy: string;
                            /** Format: date-time */
                            deadline: string;
                            /** @description Routers with an outcome (offline ones count once the command has ended) */
                            finished: number;
                            /** Format: date-time */
                            finishedAt: string | null;
                            id: string;
                            /**
                             * CommandKind
                             * @description reboot and detach need the admin scope; the others write
                             * @enum {string}
                             */
                            kind: "reprobe" | "reapply" | "rollback" | "detach" | "check_drift" | "reboot" | "diagnostics";
                            maxInFlight: number;
                            /** @description The selector as given; { ids: [id] } for a command on one router */
                            selector: unknown;
                            /**
                             * CommandState
                             * @enum {string}
                             */
                            state: "running" | "completed" | "cancelled";
                            timeoutSeconds: number;
                            total: number;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/commands/{id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel a running command: routers not sent the command yet are cancelled
         * @description Routers that already have the command may still answer; their answers are recorded.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            cancelledBy: string | null;
                            counts: {
                                cancelled: number;
                                failed: number;
                                offline: number;
                                queued: number;
                                refused: number;
                                sent: number;
                                succeeded: number;
                                timed_out: number;
                            };
                            /** Format: date-time */
                            createdAt: string;
                            createdBy: string;
                            /** Format: date-time */
                            deadline: string;
                            /** @description Routers with an outcome (offline ones count once the command has ended) */
                            finished: number;
                            /** Format: date-time */
                            finishedAt: string | null;
                            id: string;
                            /**
                             * CommandKind
                             * @description reboot and detach need the admin scope; the others write
                             * @enum {string}
                             */
                            kind: "reprobe" | "reapply" | "rollback" | "detach" | "check_drift" | "reboot" | "diagnostics";
                            maxInFlight: number;
                            /** @description The selector as given; { ids: [id] } for a command on one router */
                            selector: unknown;
                            /**
                             * CommandState
                             * @enum {string}
                             */
                            state: "running" | "completed" | "cancelled";
                            timeoutSeconds: number;
                            total: number;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/commands/{id}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Live progress as server-sent events: `target` (a router whose state changed, with its output) and `progress` (the command with its counts); ends when the command ends
         * @description The first events describe every router not queued; then changes as they happen. Ends with `event: end` when the command ends, or with `event: error` (data in the error shape) when the controller fails midway or the stream reaches its time limit; reconnect to continue watching.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "text/event-stream": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/commands/{id}/targets": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Per-router states of a command, with each agent's output */
        get: {
            parameters: {
                query: {
                    /** @description nextCursor of the previous page */
                    cursor?: string;
                    limit: number;
                    /** @description Include diagnostic bundles (up to 256 KiB each) */
                    sections?: boolean;
                    state?: "queued" | "sent" | "succeeded" | "failed" | "offline" | "timed_out" | "cancelled" | "refused";
                };
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            items: {
                                /** Format: date-time */
                                finishedAt: string | null;
                                name: string;
                                /** @description The agent's account of what it did, at most 64 KiB */
                                output: string | null;
                                /** @description Why it was refused, failed, timed out, is offline or was cancelled */
                                reason: string | null;
                                routerId: string;
                                /** @description The diagnostic bundle (with ?sections=true), at most 256 KiB */
                                sections?: {
                                    command: string;
                                    error: string;
                                    name: string;
                                    text: string;
                                    truncated: boolean;
                                }[] | null;
                                /** Format: date-time */
                                sentAt: string | null;
                                /**
                                 * CommandTargetState
                                 * @enum {string}
                                 */
                                state: "queued" | "sent" | "succeeded" | "failed" | "offline" | "timed_out" | "cancelled" | "refused";
                                /** Format: date-time */
                                updatedAt: string;
                            }[];
                            nextCursor: string | null;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/enrollment-tokens": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List enrollment tokens (never their secrets), newest first */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            items: {
                                /** Format: date-time */
                                createdAt: string;
                                createdBy: string;
                                /** Format: date-time */
                                expiresAt: string;
                                id: string;
                                /** Format: date-time */
                                revokedAt: string | null;
                                /** @description Set on an admin re-enroll token: the router it may re-key */
                                routerId: string | null;
                                routerName: string | null;
                                state: "active" | "used" | "revoked" | "expired";
                                tags: string[];
                                /** Format: date-time */
                                usedAt: string | null;
                                usedByRouterId: string | null;
                            }[];
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        put?: never;
        /** Create a single-use enrollment token for one agent; the secret is returned once */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @default 3600 */
                        expiresInSeconds?: number;
                        /** @description The enrolled router gets exactly this name */
                        routerName?: string;
                        tags?: string[];
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** Format: date-time */
                            createdAt: string;
                            createdBy: string;
                            /** Format: date-time */
                            expiresAt: string;
                            id: string;
                            /** Format: date-time */
                            revokedAt: string | null;
                            /** @description Set on an admin re-enroll token: the router it may re-key */
                            routerId: string | null;
                            routerName: string | null;
                            state: "active" | "used" | "revoked" | "expired";
                            tags: string[];
                            /** Format: date-time */
                            usedAt: string | null;
                            usedByRouterId: string | null;
                        } & {
                            /** @description SHA-256 of the controller CA certificate; the agent pins it */
                            caFingerprint: string | null;
                            grpcAddress: string;
                            /** @description The secret: shown only here */
                            token: string;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/enrollment-tokens/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Revoke an unused enrollment token */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Today’s fleet intent as documents (profiles, rollout policies, assignments, firmware policies) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            documents: {
                                apiVersion: string;
                                /**
                                 * IntentKind
                                 * @description A kind of the fleet as code (docs/FLEET-AS-CODE.md)
                                 * @enum {string}
                                 */
                                kind: "Profile" | "RolloutPolicy" | "Assignment" | "FirmwarePolicy";
                                metadata: {
                                    name: string;
                                };
                                spec: unknown;
                            }[];
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/firmware-policies": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List FirmwarePolicy resources by name */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            items: {
                                /** @description Managed from files: by which apply; null for a resource only the console and API manage */
                                managed: {
                                    /** Format: date-time */
                                    appliedAt: string;
                                    appliedBy: string;
                                    /** @description The commit or label the apply was given (--source) */
                                    source: string | null;
                                    /** @description The version the files last wrote */
                                    version: number;
                                } | null;
                                name: string;
                                /** @description As stored: every default filled in */
                                spec: unknown;
                                /** Format: date-time */
                                updatedAt: string;
                                version: number;
                            }[];
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/firmware-policies/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One FirmwarePolicy */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    name: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description Managed from files: by which apply; null for a resource only the console and API manage */
                            managed: {
                                /** Format: date-time */
                                appliedAt: string;
                                appliedBy: string;
                                /** @description The commit or label the apply was given (--source) */
                                source: string | null;
                                /** @description The version the files last wrote */
                                version: number;
                            } | null;
                            name: string;
                            /** @description As stored: every default filled in */
                            spec: unknown;
                            /** Format: date-time */
                            updatedAt: string;
                            version: number;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        /**
         * Create a FirmwarePolicy or change it (idempotent when the spec is unchanged)
         * @description Send `baseVersion` (the version you read) to change one that exists; otherwise 409.
         */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    name: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        baseVersion?: number;
                        /** @description Routers the selector matches run the firmware image */
                        spec: {
                            /** @description The image's SHA-256, as uploaded (wrtfleet firmware upload; GET /v1/firmware/images) */
                            image: string;
                            options?: {
                                /**
                                 * @description Allow an image older than the release a router runs
                                 * @default false
                                 */
                                allowDowngrade?: boolean;
                                /**
                                 * @description A router that started flashing and has not come back (a Hello with a new boot id) within this is `unconfirmed`
                                 * @default 900
                                 */
                                confirmTimeoutSeconds?: number;
                                /**
                                 * @description Keep the router's configuration (sysupgrade without -n). false: `sysupgrade -n`, needed when the image's compat_version differs from the router's (a major change is refused outright, as sysupgrade does). The agent's files are listed in /etc/sysupgrade.conf: only a kept configuration keeps the agent and its credentials
                                 * @default true
                                 */
                                keepConfig?: boolean;
                                /**
                                 * @description A router that reports no progress for this long before flashing counts as failed (a transfer reports its bytes at least every 10 % of the image)
                                 * @default 300
                                 */
                                stepTimeoutSeconds?: number;
                                /** @description A router's upgrade starts only inside the window; one started before it closes runs to its end. A batch whose window is closed waits for the next opening. */
                                window?: {
                                    /** @description Time of day it closes, HH:MM; before `start`: the window spans midnight */
                                    end: string;
                                    /** @description Time of day the window opens, HH:MM */
                                    start: string;
                                    /**
                                     * @description IANA time zone of start and end, e.g. Europe/Paris
                                     * @default UTC
                                     */
                                    timeZone: string;
                                };
                            };
                            /** @description The RolloutPolicy of the upgrades this policy starts; default strategy without */
                            rolloutPolicy?: string;
                            selector: {
                                /**
                                 * @description Every router (must be said explicitly)
                                 * @enum {boolean}
                                 */
                                all?: true;
                                /** @description Router ids */
                                ids?: string[];
                                /**
                                 * @deprecated
                                 * @description Old spelling of `release`, accepted until 0.3. OpenWrt releases or release prefixes: "23.05" matches 23.05.x
                                 */
                                openwrt?: string[];
                                /** @description OpenWrt releases or release prefixes: "23.05" matches 23.05.x */
                                release?: string[];
                                /** @description SoCs, e.g. MT7621 */
                                soc?: string[];
                                /** @description Tags the router must all carry */
                                tags?: string[];
                            };
                        };
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            changed: boolean;
                            version: number;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        post?: never;
        /** Remove a FirmwarePolicy (routers keep what they run) */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    name: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/firmware/images": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Firmware images, newest first, each with the routers it fits and why the others do not */
        get: {
            parameters: {
                query: {
                    /** @description Judge an older image as fitting */
                    allowDowngrade: boolean;
                    /** @description Judge the fit as an upgrade keeping the configuration */
                    keepConfig: boolean;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            items: {
                                /** Format: date-time */
                                createdAt: string;
                                fileName: string;
                                /** @description Which routers the image fits, judged as sysupgrade would, with the options in the query */
                                fit: {
                                    /** @description Of those, routers that need the configuration reset (sysupgrade -n) */
                                    configReset: number;
                                    /** @description Routers the image fits */
                                    fits: number;
                                    /** @description Why the others do not fit, grouped by their first refusal, the largest group first */
                                    refusals: {
                                        /** @description board, target, downgrade, config_reset_needed, compat, unknown_board, ... */
                                        code: string;
                                        /** @description Names of up to five routers of the group */
                                        examples: string[];
                                        /** @description The reason, as given for the first router of the group */
                                        reason: string;
                                        routers: number;
                                    }[];
                                    /** @description Routers judged (the live fleet) */
                                    routers: number;
                                };
                                /** @description The image's fwtool metadata block, as read at upload */
                                metadata: {
                                    compatMessage: string | null;
                                    compatVersion: string;
                                    newSupportedDevices: string[] | null;
                                    supportedDevices: string[];
                                    version: {
                                        board: string | null;
                                        dist: string;
                                        revision: string;
                                        target: string | null;
                                        version: string;
                                    };
                                };
                                /** @description The image's OpenWrt release (its metadata's version.version) */
                                release: string;
                                revision: string;
                                sha256: string;
                                /** @description A signature block follows the metadata (it is not verified here) */
                                signed: boolean;
                                sizeBytes: number;
                                target: string | null;
                                uploadedBy: string;
                            }[];
                        };
                    };
                };
            };
        };
        put?: never;
        /**
         * Upload an OpenWrt sysupgrade image (the raw file as application/octet-stream)
         * @description The controller reads the image's fwtool metadata (the FWx0 blocks at its end: supported_devices, version, compat_version) and checks their CRC. Refused with 422 naming the reason: no metadata, a factory image, a truncated image, a bad CRC, unusable metadata; 413 past the size limit (WRTFLEET_FIRMWARE_MAX_BYTES). An image already stored (same SHA-256) is answered with 200 and stored once.
         */
        post: {
            parameters: {
                query: {
                    /** @description The image's file name */
                    fileName: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            /** @description The image file */
            requestBody: {
                content: {
                    "application/octet-stream": unknown;
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** Format: date-time */
                            createdAt: string;
                            fileName: string;
                            /** @description Which routers the image fits, judged as sysupgrade would, with the options in the query */
                            fit: {
                                /** @description Of those, routers that need the configuration reset (sysupgrade -n) */
                                configReset: number;
                                /** @description Routers the image fits */
                                fits: number;
                                /** @description Why the others do not fit, grouped by their first refusal, the largest group first */
                                refusals: {
                                    /** @description board, target, downgrade, config_reset_needed, compat, unknown_board, ... */
                                    code: string;
                                    /** @description Names of up to five routers of the group */
                                    examples: string[];
                                    /** @description The reason, as given for the first router of the group */
                                    reason: string;
                                    routers: number;
                                }[];
                                /** @description Routers judged (the live fleet) */
                                routers: number;
                            };
                            /** @description The image's fwtool metadata block, as read at upload */
                            metadata: {
                                compatMessage: string | null;
                                compatVersion: string;
                                newSupportedDevices: string[] | null;
                                supportedDevices: string[];
                                version: {
                                    board: string | null;
                                    dist: string;
                                    revision: string;
                                    target: string | null;
                                    version: string;
                                };
                            };
                            /** @description The image's OpenWrt release (its metadata's version.version) */
                            release: string;
                            revision: string;
                            sha256: string;
                            /** @description A signature block follows the metadata (it is not verified here) */
                            signed: boolean;
                            sizeBytes: number;
                            target: string | null;
                            uploadedBy: string;
                        };
                    };
                };
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** Format: date-time */
                            createdAt: string;
                            fileName: string;
                            /** @description Which routers the image fits, judged as sysupgrade would, with the options in the query */
                            fit: {
                                /** @description Of those, routers that need the configuration reset (sysupgrade -n) */
                                configReset: number;
                                /** @description Routers the image fits */
                                fits: number;
                                /** @description Why the others do not fit, grouped by their first refusal, the largest group first */
                                refusals: {
                                    /** @description board, target, downgrade, config_reset_needed, compat, unknown_board, ... */
                                    code: string;
                                    /** @description Names of up to five routers of the group */
                                    examples: string[];
                                    /** @description The reason, as given for the first router of the group */
                                    reason: string;
                                    routers: number;
                                }[];
                                /** @description Routers judged (the live fleet) */
                                routers: number;
                            };
                            /** @description The image's fwtool metadata block, as read at upload */
                            metadata: {
                                compatMessage: string | null;
                                compatVersion: string;
                                newSupportedDevices: string[] | null;
                                supportedDevices: string[];
                                version: {
                                    board: string | null;
                                    dist: string;
                                    revision: string;
                                    target: string | null;
                                    version: string;
                                };
                            };
                            /** @description The image's OpenWrt release (its metadata's version.version) */
                            release: string;
                            revision: string;
                            sha256: string;
                            /** @description A signature block follows the metadata (it is not verified here) */
                            signed: boolean;
                            sizeBytes: number;
                            target: string | null;
                            uploadedBy: string;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/firmware/images/{sha256}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A firmware image, its metadata and its fit */
        get: {
            parameters: {
                query: {
                    /** @description Judge an older image as fitting */
                    allowDowngrade: boolean;
                    /** @description Judge the fit as an upgrade keeping the configuration */
                    keepConfig: boolean;
                };
                header?: never;
                path: {
                    sha256: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** Format: date-time */
                            createdAt: string;
                            fileName: string;
                            /** @description Which routers the image fits, judged as sysupgrade would, with the options in the query */
                            fit: {
                                /** @description Of those, routers that need the configuration reset (sysupgrade -n) */
                                configReset: number;
                                /** @description Routers the image fits */
                                fits: number;
                                /** @description Why the others do not fit, grouped by their first refusal, the largest group first */
                                refusals: {
                                    /** @description board, target, downgrade, config_reset_needed, compat, unknown_board, ... */
                                    code: string;
                                    /** @description Names of up to five routers of the group */
                                    examples: string[];
                                    /** @description The reason, as given for the first router of the group */
                                    reason: string;
                                    routers: number;
                                }[];
                                /** @description Routers judged (the live fleet) */
                                routers: number;
                            };
                            /** @description The image's fwtool metadata block, as read at upload */
                            metadata: {
                                compatMessage: string | null;
                                compatVersion: string;
                                newSupportedDevices: string[] | null;
                                supportedDevices: string[];
                                version: {
                                    board: string | null;
                                    dist: string;
                                    revision: string;
                                    target: string | null;
                                    version: string;
                                };
                            };
                            /** @description The image's OpenWrt release (its metadata's version.version) */
                            release: string;
                            revision: string;
                            sha256: string;
                            /** @description A signature block follows the metadata (it is not verified here) */
                            signed: boolean;
                            sizeBytes: number;
                            target: string | null;
                            uploadedBy: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        /** Remove a firmware image (refused while a rollout that has not ended carries it) */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    sha256: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/intent/schema": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The JSON Schema of a fleet document, for editors and CI linters */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": unknown;
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/jobs/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A job: state, step, percent, message, result */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            cancelRequested: boolean;
                            createdAt: string;
                            createdBy: string;
                            error: string | null;
                            finishedAt: string | null;
                            id: string;
                            input: unknown;
                            kind: string;
                            message: string | null;
                            percent: number;
                            result: unknown;
                            state: string;
                            step: string | null;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/jobs/{id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Cancel a job: it stops between steps and rolls back what it did */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                202: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            cancelRequested: boolean;
                            createdAt: string;
                            createdBy: string;
                            error: string | null;
                            finishedAt: string | null;
                            id: string;
                            input: unknown;
                            kind: string;
                            message: string | null;
                            percent: number;
                            result: unknown;
                            state: string;
                            step: string | null;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/jobs/{id}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Live progress as server-sent events (event: progress, data: {state, step, percent, message}); ends with the job
         * @description Ends with `event: end` when the job ends, or with `event: error` (data in the error shape) when the controller fails midway or the stream reaches its time limit; reconnect to continue watching.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "text/event-stream": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/onboarding": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Onboard a router over SSH (a job: connect, facts, packages, placement, first Hello, first plan) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        host: string;
                        /** @description Expected host key, as `ssh-keygen -lf` prints it; without it the first key seen is pinned */
                        hostKeyFingerprint?: string;
                        identity?: string;
                        /** @description Install missing packages (opkg/apk); otherwise report them */
                        install?: boolean;
                        name?: string;
                        passphrase?: string;
                        password?: string;
                        /** @description Where the agent runs: `auto` (on the router where Node.js 20+ runs, else the controller-hosted proxy), `on_router` or `proxy`. Deprecated: `on-router`, accepted for this release only and stored as `on_router`. */
                        placement?: "auto" | "on_router" | "proxy" | "on-router";
                        port?: number;
                        privateKey?: string;
                        tags?: string[];
                        user?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                202: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            events: string;
                            jobId: string;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/onboarding/inventory": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Onboard every router of an inventory file (CSV or YAML), all or none
         * @description The file is the one `wrtfleet onboard --inventory` reads, except that its `passwordFile`/`keyFile` columns are not read: the one password or key sent here is used for every router. A file that is not CSV or YAML, or any bad row, refuses the upload with every bad row named in `details`, and no job starts. At most 500 routers.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description The file's name; its extension says the format: .csv, .yaml or .yml */
                        filename: string;
                        passphrase?: string;
                        password?: string;
                        privateKey?: string;
                        /** @description The inventory file, as `wrtfleet onboard --inventory` reads it */
                        text: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                202: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            jobs: {
                                events: string;
                                host: string;
                                jobId: string;
                                row: string;
                            }[];
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/plan": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * What applying these documents would change, and which routers each change reaches
         * @description Read-only. Each resource with its action and spec diff; each Assignment and FirmwarePolicy with the routers it selects and what the apply would do to each, with the plan preview’s reasons. `changes` 0: nothing to apply. Keep `state` to apply exactly this plan later (`expectState`).
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description The documents of a fleet directory, in file order. An error names one as `/documents/{index}/...` so a client can point at its file and line. The JSON Schema of a document: GET /v1/intent/schema */
                        documents: {
                            [key: string]: unknown;
                        }[];
                        /**
                         * @description Remove what the files managed and no longer name
                         * @default false
                         */
                        prune?: boolean;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description Resource changes and rollouts the apply would make; 0: nothing */
                            changes: number;
                            prune: boolean;
                            resources: {
                                /**
                                 * IntentAction
                                 * @description `update` of a profile writes a new revision; `adopt`: same spec, to be marked managed from files (again); `orphan`: managed from files that no longer name it, kept (apply with prune removes it)
                                 * @enum {string}
                                 */
                                action: "create" | "update" | "adopt" | "delete" | "unchanged" | "orphan";
                                diff: {
                                    after?: unknown;
                                    before?: unknown;
                                    op: string;
                                    path: string;
                                }[];
                                /** @description Its document's index; null when the files no longer name it */
                                document: number | null;
                                /** @description Set when it was changed outside the files since they last wrote it */
                                drift: string | null;
                                /**
                                 * IntentKind
                                 * @description A kind of the fleet as code (docs/FLEET-AS-CODE.md)
                                 * @enum {string}
                                 */
                                kind: "Profile" | "RolloutPolicy" | "Assignment" | "FirmwarePolicy";
                                /** @description Managed from files: by which apply; null for a resource only the console and API manage */
                                managed: {
                                    /** Format: date-time */
                                    appliedAt: string;
                                    appliedBy: string;
                                    /** @description The commit or label the apply was given (--source) */
                                    source: string | null;
                                    /** @description The version the files last wrote */
                                    version: number;
                                } | null;
                                name: string;
                                /** @description Assignments and firmware policies: the routers they select and what the apply does to each */
                                reach: {
                                    counts: {
                                        change: number;
                                        refused: number;
                                        retry: number;
                                        revision: number;
                                        unchanged: number;
                                    };
                                    matched: number;
                                    /** @description The rollout the apply starts; null when every router is there */
                                    rollout: {
                                        policy: string | null;
                                        routers: number;
                                    } | null;
                                    /** @description The first 100 by name; counts cover all */
                                    routers: {
                                        /** @description What it is set to run now: profile@revision, or its release */
                                        from: string | null;
                                        id: string;
                                        name: string;
                                        reason: string | null;
                                        /**
                                         * ReachVerdict
                                         * @description `change`: its plan changes; `revision`: a new revision with the same plan; `retry`: set to run the revision but not running it (its apply failed or never came) and no rollout bringing it, so the apply sends it again, `reason` says what it runs; `unchanged`: already there or on its way in a running rollout; `refused`: the plan (or the image) is refused on it, `reason` says why, and the rollout leaves it out
                                         * @enum {string}
                                         */
                                        verdict: "change" | "revision" | "retry" | "unchanged" | "refused";
                                    }[];
                                    target: string;
                                } | null;
                                version: {
                                    live: number | null;
                                    planned: number | null;
                                };
                            }[];
                            /** @description The version of every resource the plan read ("Profile/home": 3); send it back as `expectState` */
                            state: {
                                [key: string]: number;
                            };
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/plan-preview": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Dry run: the plan each selected router would get from a profile revision, and what would change on it */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @default 100 */
                        limit?: number;
                        profile: string;
                        revision?: number;
                        selector: {
                            /**
                             * @description Every router (must be said explicitly)
                             * @enum {boolean}
                             */
                            all?: true;
                            /** @description Router ids */
                            ids?: string[];
                            /**
                             * @deprecated
                             * @description Old spelling of `release`, accepted until 0.3. OpenWrt releases or release prefixes: "23.05" matches 23.05.x
                             */
                            openwrt?: string[];
                            /** @description OpenWrt releases or release prefixes: "23.05" matches 23.05.x */
                            release?: string[];
                            /** @description SoCs, e.g. MT7621 */
                            soc?: string[];
                            /** @description Tags the router must all carry */
                            tags?: string[];
                        };
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description The first `limit` matched routers, each in detail */
                            items: {
                                applied: {
                                    planHash: string | null;
                                    profile: string;
                                    revision: number;
                                } | null;
                                changes: {
                                    after?: unknown;
                                    before?: unknown;
                                    op: string;
                                    path: string;
                                }[];
                                effective: {
                                    overrides: unknown;
                                    profile: string;
                                    revision: number;
                                } | null;
                                name: string;
                                /** @description resolvePlan output: datapath, offload, conflicts, decisions with reasons, planHash */
                                plan: unknown;
                                routerId: string;
                            }[];
                            matched: number;
                            /** @description Over every matched router, not only the items: satisfiable + refused = matched, changing + unchanged = satisfiable */
                            summary: {
                                /** @description Satisfiable, and the plan differs from what the router runs */
                                changing: number;
                                /** @description The plan refuses these routers (what POST /v1/rollouts `skipRefused` leaves out) */
                                refused: number;
                                satisfiable: number;
                                /** @description Satisfiable, and the same plan as the router runs */
                                unchanged: number;
                            };
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/profiles": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List profiles by name */
        get: {
            parameters: {
                query: {
                    cursor?: string;
                    limit: number;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            items: {
                                createdAt: string;
                                latestRevision: number;
                                /** @description Managed from files: by which apply; null for a resource only the console and API manage */
                                managed: {
                                    /** Format: date-time */
                                    appliedAt: string;
                                    appliedBy: string;
                                    /** @description The commit or label the apply was given (--source) */
                                    source: string | null;
                                    /** @description The version the files last wrote */
                                    version: number;
                                } | null;
                                name: string;
                                updatedAt: string;
                            }[];
                            nextCursor: string | null;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/profiles/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The latest revision of a profile */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    name: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** Format: date-time */
                            createdAt: string;
                            createdBy: string;
                            /** @description Managed from files: by which apply; null for a resource only the console and API manage */
                            managed: {
                                /** Format: date-time */
                                appliedAt: string;
                                appliedBy: string;
                                /** @description The commit or label the apply was given (--source) */
                                source: string | null;
                                /** @description The version the files last wrote */
                                version: number;
                            } | null;
                            profile: string;
                            revision: number;
                            /** @description The revision's spec as stored, and as routers apply it before any per-router overrides: every field present. Each field the saving request left out holds the profile spec schema's `default` of the time it was saved (a spec that only turns on `l3Rewrite.ttl` is stored with `ipid`, `tcpts` and `tcpwin.enabled` on as well), so a later change of a default never changes what a revision means. */
                            spec: unknown;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        /**
         * Create a profile or add a revision (idempotent when the spec is unchanged)
         * @description Send `baseRevision`: the revision your change starts from (0 or absent to create). If someone added a revision since, the answer is 409 and nothing is written. The spec is stored with every default filled in, not as sent: a field left out takes its `default` from the spec schema below, and the answer's `spec` is what was stored. A spec equal to the latest revision once defaults are filled in writes nothing and answers 200 with `changed: false`.
         */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    name: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        baseRevision?: number;
                        /**
                         * ProfileSpec
                         * @description Body of an immutable profile revision.
                         */
                        spec: {
                            /**
                             * @description Commit-confirmed apply.
                             * @default {}
                             */
                            commitConfirm?: {
                                /**
                                 * @description After applying, the agent rolls back by itself unless the controller confirms within this window.
                                 * @default 60
                                 */
                                windowSeconds?: number;
                            };
                            /**
                             * @description Which half of the profile is the hard requirement when rewriting and offloading cannot both hold. prefer-rewrite: offloading yields (hardware -> software when TTL/IP-ID rewriting is on; off when rewriting runs in nftables; an unavailable offload mode degrades). prefer-offload: offloading is kept and the plan warns which rewrites stop applying to offloaded flows; an unavailable explicit offload mode refuses the plan.
                             * @default prefer-rewrite
                             */
                            conflictPolicy?: "prefer-rewrite" | "prefer-offload";
                            /**
                             * @description Drift detection.
                             * @default {}
                             */
                            drift?: {
                                /**
                                 * @description How often the agent compares the live state with the applied revision.
                                 * @default 300
                                 */
                                intervalSeconds?: number;
                                /**
                                 * @description report: only report differences; reapply: also re-apply the revision.
                                 * @default report
                                 */
                                policy?: "report" | "reapply";
                            };
                            /**
                             * @description Flow offloading through the firewall (docs/DOMAIN.md, Flow offloading).
                             * @default {}
                             */
                            flowOffload?: {
                                /**
                                 * @description off; software (fw4 flowtable); hardware (flowtable with flags offload, needs a PPE); auto: the best the router has that the conflict policy allows.
                                 * @default auto
                                 */
                                mode?: "off" | "software" | "hardware" | "auto";
                            };
                            /**
                             * @description Layer 3/4 header rewriting on WAN egress (docs/DOMAIN.md, The four rewrites).
                             * @default {}
                             */
                            l3Rewrite?: {
                                /**
                                 * @description on: eBPF (TC egress) required, the plan refuses where it is unavailable; auto: eBPF, else the in-kernel nftables fallback; off: nftables only.
                                 * @default auto
                                 */
                                ebpf?: "on" | "auto" | "off";
                                /**
                                 * @description Zero the IPv4 ID of every packet (set_ip_id_zero).
                                 * @default true
                                 */
                                ipid?: boolean;
                                /**
                                 * @description Also rewrite the IPv6 hop limit to ttl.value (set_ip_ttl handles both). Needs ttl.enabled. Off by default: the reference leaves IPv6 untouched.
                                 * @default false
                                 */
                                ipv6HopLimit?: boolean;
                                /**
                                 * @description Overwrite the TCP timestamp option of first SYNs with NOPs (clear_tcp_syn_ts).
                                 * @default true
                                 */
                                tcpts?: boolean;
                                /**
                                 * @description TCP SYN window rewriting.
                                 * @default {}
                                 */
                                tcpwin?: {
                                    /**
                                     * @description Rewrite the TCP window of first SYNs (set_tcp_syn_window).
                                     * @default true
                                     */
                                    enabled?: boolean;
                                    /**
                                     * @description Window put into first SYNs.
                                     * @default 65535
                                     */
                                    value?: number;
                                };
                                /**
                                 * @description IPv4 TTL rewriting.
                                 * @default {}
                                 */
                                ttl?: {
                                    /**
                                     * @description Rewrite the IPv4 TTL of every packet (set_ip_ttl).
                                     * @default true
                                     */
                                    enabled?: boolean;
                                    /**
                                     * @description Target TTL: 64 looks like Linux/macOS/Android, 128 like Windows.
                                     * @default 64
                                     */
                                    value?: number;
                                };
                            };
                            /**
                             * @description Version of this spec format.
                             * @default 1
                             * @enum {number}
                             */
                            schemaVersion?: 1;
                        };
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            changed: boolean;
                            created: boolean;
                            name: string;
                            revision: number;
                            /** @description The revision's spec as stored, and as routers apply it before any per-router overrides: every field present. Each field the saving request left out holds the profile spec schema's `default` of the time it was saved (a spec that only turns on `l3Rewrite.ttl` is stored with `ipid`, `tcpts` and `tcpwin.enabled` on as well), so a later change of a default never changes what a revision means. */
                            spec: unknown;
                        };
                    };
                };
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            changed: boolean;
                            created: boolean;
                            name: string;
                            revision: number;
                            /** @description The revision's spec as stored, and as routers apply it before any per-router overrides: every field present. Each field the saving request left out holds the profile spec schema's `default` of the time it was saved (a spec that only turns on `l3Rewrite.ttl` is stored with `ipid`, `tcpts` and `tcpwin.enabled` on as well), so a later change of a default never changes what a revision means. */
                            spec: unknown;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/profiles/{name}/revisions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Revisions of a profile, newest first */
        get: {
            parameters: {
                query: {
                    cursor?: string;
                    limit: number;
                };
                header?: never;
                path: {
                    name: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            items: {
                                /** Format: date-time */
                                createdAt: string;
                                createdBy: string;
                                profile: string;
                                revision: number;
                                /** @description The revision's spec as stored, and as routers apply it before any per-router overrides: every field present. Each field the saving request left out holds the profile spec schema's `default` of the time it was saved (a spec that only turns on `l3Rewrite.ttl` is stored with `ipid`, `tcpts` and `tcpwin.enabled` on as well), so a later change of a default never changes what a revision means. */
                                spec: unknown;
                            }[];
                            nextCursor: string | null;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/profiles/{name}/revisions/{revision}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One revision of a profile */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    name: string;
                    revision: number;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** Format: date-time */
                            createdAt: string;
                            createdBy: string;
                            profile: string;
                            revision: number;
                            /** @description The revision's spec as stored, and as routers apply it before any per-router overrides: every field present. Each field the saving request left out holds the profile spec schema's `default` of the time it was saved (a spec that only turns on `l3Rewrite.ttl` is stored with `ipid`, `tcpts` and `tcpwin.enabled` on as well), so a later change of a default never changes what a revision means. */
                            spec: unknown;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/rollout-policies": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List RolloutPolicy resources by name */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            items: {
                                /** @description Managed from files: by which apply; null for a resource only the console and API manage */
                                managed: {
                                    /** Format: date-time */
                                    appliedAt: string;
                                    appliedBy: string;
                                    /** @description The commit or label the apply was given (--source) */
                                    source: string | null;
                                    /** @description The version the files last wrote */
                                    version: number;
                                } | null;
                                name: string;
                                /** @description As stored: every default filled in */
                                spec: unknown;
                                /** Format: date-time */
                                updatedAt: string;
                                version: number;
                            }[];
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/rollout-policies/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One RolloutPolicy */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    name: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description Managed from files: by which apply; null for a resource only the console and API manage */
                            managed: {
                                /** Format: date-time */
                                appliedAt: string;
                                appliedBy: string;
                                /** @description The commit or label the apply was given (--source) */
                                source: string | null;
                                /** @description The version the files last wrote */
                                version: number;
                            } | null;
                            name: string;
                            /** @description As stored: every default filled in */
                            spec: unknown;
                            /** Format: date-time */
                            updatedAt: string;
                            version: number;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        /**
         * Create a RolloutPolicy or change it (idempotent when the spec is unchanged)
         * @description Send `baseVersion` (the version you read) to change one that exists; otherwise 409.
         */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    name: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        baseVersion?: number;
                        /** @description How the rollouts an apply starts go: canary, batch size, failure threshold, soak, promotion (as POST /v1/rollouts' `strategy`), and a maintenance window: a firmware upgrade starts only inside it; a profile rollout starts at its next opening */
                        spec: {
                            /**
                             * @description Routers per batch after the canary
                             * @default 50
                             */
                            batchSize?: number;
                            /**
                             * @description Routers in the first batch; 0 skips the canary
                             * @default 1
                             */
                            canary?: number;
                            /**
                             * @description Pause when (failed + rolled back) / finished exceeds this after a batch; 0 pauses on the first failure
                             * @default 0
                             */
                            maxFailureRatio?: number;
                            /**
                             * @description `manual`: after the first batch (the canary) and its soak and gates, the rollout waits in state `awaiting_approval` until POST /v1/rollouts/{id}/promote; `auto` goes on by itself
                             * @default auto
                             */
                            promote?: "auto" | "manual";
                            /**
                             * @description A sent router with no result after this long counts as failed
                             * @default 180
                             */
                            resultTimeoutSeconds?: number;
                            /**
                             * @description Wait this long after each batch before the next (state `soaking`), then judge the health gates on the batch's routers: no drift reported during the soak, no failed or rolled-back apply since they applied, and telemetry counters moving (a sample arrived during the soak and, where the plan counts packets, its counters grew). A gate that fails pauses the rollout with the reason. Longer than the telemetry interval (4 heartbeats, 60 s by default) plus the flush (5 s), or the telemetry gate cannot see a sample. 0: no soak, and no gates unless `promote` is `manual`
                             * @default 0
                             */
                            soakSeconds?: number;
                            /** @description A router's upgrade starts only inside the window; one started before it closes runs to its end. A batch whose window is closed waits for the next opening. */
                            window?: {
                                /** @description Time of day it closes, HH:MM; before `start`: the window spans midnight */
                                end: string;
                                /** @description Time of day the window opens, HH:MM */
                                start: string;
                                /**
                                 * @description IANA time zone of start and end, e.g. Europe/Paris
                                 * @default UTC
                                 */
                                timeZone: string;
                            };
                        };
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            changed: boolean;
                            version: number;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        post?: never;
        /** Remove a RolloutPolicy (routers keep what they run) */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    name: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/rollouts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Rollouts, newest first */
        get: {
            parameters: {
                query: {
                    limit: number;
                    state?: "scheduled" | "running" | "soaking" | "awaiting_approval" | "paused" | "completed" | "cancelled";
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            items: {
                                batchCount: number;
                                counts: {
                                    [key: string]: number;
                                };
                                createdAt: string;
                                createdBy: string;
                                currentBatch: number;
                                finished: number;
                                finishedAt: string | null;
                                /** @description The image a firmware rollout installs and how; null for a profile rollout */
                                firmware: {
                                    fileName: string;
                                    /** @description The image's SHA-256; null once the image was removed */
                                    image: string | null;
                                    options: {
                                        /**
                                         * @description Allow an image older than the release a router runs
                                         * @default false
                                         */
                                        allowDowngrade: boolean;
                                        /**
                                         * @description A router that started flashing and has not come back (a Hello with a new boot id) within this is `unconfirmed`
                                         * @default 900
                                         */
                                        confirmTimeoutSeconds: number;
                                        /**
                                         * @description Keep the router's configuration (sysupgrade without -n). false: `sysupgrade -n`, needed when the image's compat_version differs from the router's (a major change is refused outright, as sysupgrade does). The agent's files are listed in /etc/sysupgrade.conf: only a kept configuration keeps the agent and its credentials
                                         * @default true
                                         */
                                        keepConfig: boolean;
                                        /**
                                         * @description A router that reports no progress for this long before flashing counts as failed (a transfer reports its bytes at least every 10 % of the image)
                                         * @default 300
                                         */
                                        stepTimeoutSeconds: number;
                                        /** @description A router's upgrade starts only inside the window; one started before it closes runs to its end. A batch whose window is closed waits for the next opening. */
                                        window?: {
                                            /** @description Time of day it closes, HH:MM; before `start`: the window spans midnight */
                                            end: string;
                                            /** @description Time of day the window opens, HH:MM */
                                            start: string;
                                            /**
                                             * @description IANA time zone of start and end, e.g. Europe/Paris
                                             * @default UTC
                                             */
                                            timeZone: string;
                                        };
                                    };
                                    release: string;
                                    revision: string;
                                    target: string | null;
                                } | null;
                                id: string;
                                /**
                                 * RolloutKind
                                 * @description What the rollout carries: a profile revision, or a firmware image
                                 * @enum {string}
                                 */
                                kind: "profile" | "firmware";
                                /** @description Targets left out from the start because the plan refuses them (skipped, batch -1, never sent) */
                                leftOut: number;
                                /** @description The health gate that paused it (apply, drift, telemetry); null for other pauses */
                                pauseGate: string | null;
                                /** @description Why it is paused, in words; null unless paused */
                                pauseReason: string | null;
                                /** @description The profile (profile rollouts); null for a firmware rollout */
                                profile: string | null;
                                revision: number | null;
                                selector: unknown;
                                /**
                                 * Format: date-time
                                 * @description While soaking: when the soak ends
                                 */
                                soakUntil: string | null;
                                startAt: string;
                                /**
                                 * RolloutState
                                 * @description `soaking`: a batch finished, waiting `strategy.soakSeconds` before its health gates; `awaiting_approval`: the first batch passed them and the rollout waits for POST /v1/rollouts/{id}/promote
                                 * @enum {string}
                                 */
                                state: "scheduled" | "running" | "soaking" | "awaiting_approval" | "paused" | "completed" | "cancelled";
                                strategy: {
                                    /**
                                     * @description Routers per batch after the canary
                                     * @default 50
                                     */
                                    batchSize: number;
                                    /**
                                     * @description Routers in the first batch; 0 skips the canary
                                     * @default 1
                                     */
                                    canary: number;
                                    /**
                                     * @description Pause when (failed + rolled back) / finished exceeds this after a batch; 0 pauses on the first failure
                                     * @default 0
                                     */
                                    maxFailureRatio: number;
                                    /**
                                     * @description `manual`: after the first batch (the canary) and its soak and gates, the rollout waits in state `awaiting_approval` until POST /v1/rollouts/{id}/promote; `auto` goes on by itself
                                     * @default auto
                                     */
                                    promote: "auto" | "manual";
                                    /**
                                     * @description A sent router with no result after this long counts as failed
                                     * @default 180
                                     */
                                    resultTimeoutSeconds: number;
                                    /**
                                     * @description Wait this long after each batch before the next (state `soaking`), then judge the health gates on the batch's routers: no drift reported during the soak, no failed or rolled-back apply since they applied, and telemetry counters moving (a sample arrived during the soak and, where the plan counts packets, its counters grew). A gate that fails pauses the rollout with the reason. Longer than the telemetry interval (4 heartbeats, 60 s by default) plus the flush (5 s), or the telemetry gate cannot see a sample. 0: no soak, and no gates unless `promote` is `manual`
                                     * @default 0
                                     */
                                    soakSeconds: number;
                                };
                                total: number;
                            }[];
                        };
                    };
                };
            };
        };
        put?: never;
        /**
         * Start (or schedule) a rollout of a profile revision, or of a firmware image, to the routers a selector matches
         * @description Give `profile` (and optionally `revision`) or `firmware`, not both. A firmware rollout leaves out the routers the image does not fit (skipped in batch -1, the reason named) and upgrades the others batch by batch: a router is `upgraded` only when it comes back with a new boot id on the image's release, `failed` when it comes back on the old one or a step fails, `unconfirmed` when it does not come back.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        firmware?: {
                            /**
                             * @description Allow an image older than the release a router runs
                             * @default false
                             */
                            allowDowngrade?: boolean;
                            /**
                             * @description A router that started flashing and has not come back (a Hello with a new boot id) within this is `unconfirmed`
                             * @default 900
                             */
                            confirmTimeoutSeconds?: number;
                            /** @description The image's SHA-256 (GET /v1/firmware/images) */
                            image: string;
                            /**
                             * @description Keep the router's configuration (sysupgrade without -n). false: `sysupgrade -n`, needed when the image's compat_version differs from the router's (a major change is refused outright, as sysupgrade does). The agent's files are listed in /etc/sysupgrade.conf: only a kept configuration keeps the agent and its credentials
                             * @default true
                             */
                            keepConfig?: boolean;
                            /**
                             * @description A router that reports no progress for this long before flashing counts as failed (a transfer reports its bytes at least every 10 % of the image)
                             * @default 300
                             */
                            stepTimeoutSeconds?: number;
                            /** @description A router's upgrade starts only inside the window; one started before it closes runs to its end. A batch whose window is closed waits for the next opening. */
                            window?: {
                                /** @description Time of day it closes, HH:MM; before `start`: the window spans midnight */
                                end: string;
                                /** @description Time of day the window opens, HH:MM */
                                start: string;
                                /**
                                 * @description IANA time zone of start and end, e.g. Europe/Paris
                                 * @default UTC
                                 */
                                timeZone: string;
                            };
                        };
                        profile?: string;
                        revision?: number;
                        selector: {
                            /**
                             * @description Every router (must be said explicitly)
                             * @enum {boolean}
                             */
                            all?: true;
                            /** @description Router ids */
                            ids?: string[];
                            /**
                             * @deprecated
                             * @description Old spelling of `release`, accepted until 0.3. OpenWrt releases or release prefixes: "23.05" matches 23.05.x
                             */
                            openwrt?: string[];
                            /** @description OpenWrt releases or release prefixes: "23.05" matches 23.05.x */
                            release?: string[];
                            /** @description SoCs, e.g. MT7621 */
                            soc?: string[];
                            /** @description Tags the router must all carry */
                            tags?: string[];
                        };
                        /**
                         * @description Leave out the routers the plan refuses, judged as POST /v1/plan-preview judges them (its `summary.refused`): they become targets `skipped` in batch -1 with the refusal as their error, are never sent the revision and keep their desired state; batches are made of the others. Refused with 400 when the plan refuses every matched router
                         * @default false
                         */
                        skipRefused?: boolean;
                        /** Format: date-time */
                        startAt?: string;
                        strategy?: {
                            /**
                             * @description Routers per batch after the canary
                             * @default 50
                             */
                            batchSize?: number;
                            /**
                             * @description Routers in the first batch; 0 skips the canary
                             * @default 1
                             */
                            canary?: number;
                            /**
                             * @description Pause when (failed + rolled back) / finished exceeds this after a batch; 0 pauses on the first failure
                             * @default 0
                             */
                            maxFailureRatio?: number;
                            /**
                             * @description `manual`: after the first batch (the canary) and its soak and gates, the rollout waits in state `awaiting_approval` until POST /v1/rollouts/{id}/promote; `auto` goes on by itself
                             * @default auto
                             */
                            promote?: "auto" | "manual";
                            /**
                             * @description A sent router with no result after this long counts as failed
                             * @default 180
                             */
                            resultTimeoutSeconds?: number;
                            /**
                             * @description Wait this long after each batch before the next (state `soaking`), then judge the health gates on the batch's routers: no drift reported during the soak, no failed or rolled-back apply since they applied, and telemetry counters moving (a sample arrived during the soak and, where the plan counts packets, its counters grew). A gate that fails pauses the rollout with the reason. Longer than the telemetry interval (4 heartbeats, 60 s by default) plus the flush (5 s), or the telemetry gate cannot see a sample. 0: no soak, and no gates unless `promote` is `manual`
                             * @default 0
                             */
                            soakSeconds?: number;
                        };
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            batchCount: number;
                            counts: {
                                [key: string]: number;
                            };
                            createdAt: string;
                            createdBy: string;
                            currentBatch: number;
                            finished: number;
                            finishedAt: string | null;
                            /** @description The image a firmware rollout installs and how; null for a profile rollout */
                            firmware: {
                                fileName: string;
                                /** @description The image's SHA-256; null once the image was removed */
                                image: string | null;
                                options: {
                                    /**
                                     * @description Allow an image older than the release a router runs
                                     * @default false
                                     */
                                    allowDowngrade: boolean;
                                    /**
                                     * @description A router that started flashing and has not come back (a Hello with a new boot id) within this is `unconfirmed`
                                     * @default 900
                                     */
                                    confirmTimeoutSeconds: number;
                                    /**
                                     * @description Keep the router's configuration (sysupgrade without -n). false: `sysupgrade -n`, needed when the image's compat_version differs from the router's (a major change is refused outright, as sysupgrade does). The agent's files are listed in /etc/sysupgrade.conf: only a kept configuration keeps the agent and its credentials
                                     * @default true
                                     */
                                    keepConfig: boolean;
                                    /**
                                     * @description A router that reports no progress for this long before flashing counts as failed (a transfer reports its bytes at least every 10 % of the image)
                                     * @default 300
                                     */
                                    stepTimeoutSeconds: number;
                                    /** @description A router's upgrade starts only inside the window; one started before it closes runs to its end. A batch whose window is closed waits for the next opening. */
                                    window?: {
                                        /** @description Time of day it closes, HH:MM; before `start`: the window spans midnight */
                                        end: string;
                                        /** @description Time of day the window opens, HH:MM */
                                        start: string;
                                        /**
                                         * @description IANA time zone of start and end, e.g. Europe/Paris
                                         * @default UTC
                                         */
                                        timeZone: string;
                                    };
                                };
                                release: string;
                                revision: string;
                                target: string | null;
                            } | null;
                            id: string;
                            /**
                             * RolloutKind
                             * @description What the rollout carries: a profile revision, or a firmware image
                             * @enum {string}
                             */
                            kind: "profile" | "firmware";
                            /** @description Targets left out from the start because the plan refuses them (skipped, batch -1, never sent) */
                            leftOut: number;
                            /** @description The health gate that paused it (apply, drift, telemetry); null for other pauses */
                            pauseGate: string | null;
                            /** @description Why it is paused, in words; null unless paused */
                            pauseReason: string | null;
                            /** @description The profile (profile rollouts); null for a firmware rollout */
                            profile: string | null;
                            revision: number | null;
                            selector: unknown;
                            /**
                             * Format: date-time
                             * @description While soaking: when the soak ends
                             */
                            soakUntil: string | null;
                            startAt: string;
                            /**
                             * RolloutState
                             * @description `soaking`: a batch finished, waiting `strategy.soakSeconds` before its health gates; `awaiting_approval`: the first batch passed them and the rollout waits for POST /v1/rollouts/{id}/promote
                             * @enum {string}
                             */
                            state: "scheduled" | "running" | "soaking" | "awaiting_approval" | "paused" | "completed" | "cancelled";
                            strategy: {
                                /**
                                 * @description Routers per batch after the canary
                                 * @default 50
                                 */
                                batchSize: number;
                                /**
                                 * @description Routers in the first batch; 0 skips the canary
                                 * @default 1
                                 */
                                canary: number;
                                /**
                                 * @description Pause when (failed + rolled back) / finished exceeds this after a batch; 0 pauses on the first failure
                                 * @default 0
                                 */
                                maxFailureRatio: number;
                                /**
                                 * @description `manual`: after the first batch (the canary) and its soak and gates, the rollout waits in state `awaiting_approval` until POST /v1/rollouts/{id}/promote; `auto` goes on by itself
                                 * @default auto
                                 */
                                promote: "auto" | "manual";
                                /**
                                 * @description A sent router with no result after this long counts as failed
                                 * @default 180
                                 */
                                resultTimeoutSeconds: number;
                                /**
                                 * @description Wait this long after each batch before the next (state `soaking`), then judge the health gates on the batch's routers: no drift reported during the soak, no failed or rolled-back apply since they applied, and telemetry counters moving (a sample arrived during the soak and, where the plan counts packets, its counters grew). A gate that fails pauses the rollout with the reason. Longer than the telemetry interval (4 heartbeats, 60 s by default) plus the flush (5 s), or the telemetry gate cannot see a sample. 0: no soak, and no gates unless `promote` is `manual`
                                 * @default 0
                                 */
                                soakSeconds: number;
                            };
                            total: number;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/rollouts/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A rollout and its progress */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            batchCount: number;
                            counts: {
                                [key: string]: number;
                            };
                            createdAt: string;
                            createdBy: string;
                            currentBatch: number;
                            finished: number;
                            finishedAt: string | null;
                            /** @description The image a firmware rollout installs and how; null for a profile rollout */
                            firmware: {
                                fileName: string;
                                /** @description The image's SHA-256; null once the image was removed */
                                image: string | null;
                                options: {
                                    /**
                                     * @description Allow an image older than the release a router runs
                                     * @default false
                                     */
                                    allowDowngrade: boolean;
                                    /**
                                     * @description A router that started flashing and has not come back (a Hello with a new boot id) within this is `unconfirmed`
                                     * @default 900
                                     */
                                    confirmTimeoutSeconds: number;
                                    /**
                                     * @description Keep the router's configuration (sysupgrade without -n). false: `sysupgrade -n`, needed when the image's compat_version differs from the router's (a major change is refused outright, as sysupgrade does). The agent's files are listed in /etc/sysupgrade.conf: only a kept configuration keeps the agent and its credentials
                                     * @default true
                                     */
                                    keepConfig: boolean;
                                    /**
                                     * @description A router that reports no progress for this long before flashing counts as failed (a transfer reports its bytes at least every 10 % of the image)
                                     * @default 300
                                     */
                                    stepTimeoutSeconds: number;
                                    /** @description A router's upgrade starts only inside the window; one started before it closes runs to its end. A batch whose window is closed waits for the next opening. */
                                    window?: {
                                        /** @description Time of day it closes, HH:MM; before `start`: the window spans midnight */
                                        end: string;
                                        /** @description Time of day the window opens, HH:MM */
                                        start: string;
                                        /**
                                         * @description IANA time zone of start and end, e.g. Europe/Paris
                                         * @default UTC
                                         */
                                        timeZone: string;
                                    };
                                };
                                release: string;
                                revision: string;
                                target: string | null;
                            } | null;
                            id: string;
                            /**
                             * RolloutKind
                             * @description What the rollout carries: a profile revision, or a firmware image
                             * @enum {string}
                             */
                            kind: "profile" | "firmware";
                            /** @description Targets left out from the start because the plan refuses them (skipped, batch -1, never sent) */
                            leftOut: number;
                            /** @description The health gate that paused it (apply, drift, telemetry); null for other pauses */
                            pauseGate: string | null;
                            /** @description Why it is paused, in words; null unless paused */
                            pauseReason: string | null;
                            /** @description The profile (profile rollouts); null for a firmware rollout */
                            profile: string | null;
                            revision: number | null;
                            selector: unknown;
                            /**
                             * Format: date-time
                             * @description While soaking: when the soak ends
                             */
                            soakUntil: string | null;
                            startAt: string;
                            /**
                             * RolloutState
                             * @description `soaking`: a batch finished, waiting `strategy.soakSeconds` before its health gates; `awaiting_approval`: the first batch passed them and the rollout waits for POST /v1/rollouts/{id}/promote
                             * @enum {string}
                             */
                            state: "scheduled" | "running" | "soaking" | "awaiting_approval" | "paused" | "completed" | "cancelled";
                            strategy: {
                                /**
                                 * @description Routers per batch after the canary
                                 * @default 50
                                 */
                                batchSize: number;
                                /**
                                 * @description Routers in the first batch; 0 skips the canary
                                 * @default 1
                                 */
                                canary: number;
                                /**
                                 * @description Pause when (failed + rolled back) / finished exceeds this after a batch; 0 pauses on the first failure
                                 * @default 0
                                 */
                                maxFailureRatio: number;
                                /**
                                 * @description `manual`: after the first batch (the canary) and its soak and gates, the rollout waits in state `awaiting_approval` until POST /v1/rollouts/{id}/promote; `auto` goes on by itself
                                 * @default auto
                                 */
                                promote: "auto" | "manual";
                                /**
                                 * @description A sent router with no result after this long counts as failed
                                 * @default 180
                                 */
                                resultTimeoutSeconds: number;
                                /**
                                 * @description Wait this long after each batch before the next (state `soaking`), then judge the health gates on the batch's routers: no drift reported during the soak, no failed or rolled-back apply since they applied, and telemetry counters moving (a sample arrived during the soak and, where the plan counts packets, its counters grew). A gate that fails pauses the rollout with the reason. Longer than the telemetry interval (4 heartbeats, 60 s by default) plus the flush (5 s), or the telemetry gate cannot see a sample. 0: no soak, and no gates unless `promote` is `manual`
                                 * @default 0
                                 */
                                soakSeconds: number;
                            };
                            total: number;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/rollouts/{id}/abort": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Old spelling of /cancel, removed in 0.3. Cancel a rollout: unsent routers keep what they have, and routers it was sent to that did not apply it (waiting, failed, rolled back, offline) get back the desired revision and assignment they had before it, each audited as router.desired.restored
         * @deprecated
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            batchCount: number;
                            counts: {
                                [key: string]: number;
                            };
                            createdAt: string;
                            createdBy: string;
                            currentBatch: number;
                            finished: number;
                            finishedAt: string | null;
                            /** @description The image a firmware rollout installs and how; null for a profile rollout */
                            firmware: {
                                fileName: string;
                                /** @description The image's SHA-256; null once the image was removed */
                                image: string | null;
                                options: {
                                    /**
                                     * @description Allow an image older than the release a router runs
                                     * @default false
                                     */
                                    allowDowngrade: boolean;
                                    /**
                                     * @description A router that started flashing and has not come back (a Hello with a new boot id) within this is `unconfirmed`
                                     * @default 900
                                     */
                                    confirmTimeoutSeconds: number;
                                    /**
                                     * @description Keep the router's configuration (sysupgrade without -n). false: `sysupgrade -n`, needed when the image's compat_version differs from the router's (a major change is refused outright, as sysupgrade does). The agent's files are listed in /etc/sysupgrade.conf: only a kept configuration keeps the agent and its credentials
                                     * @default true
                                     */
                                    keepConfig: boolean;
                                    /**
                                     * @description A router that reports no progress for this long before flashing counts as failed (a transfer reports its bytes at least every 10 % of the image)
                                     * @default 300
                                     */
                                    stepTimeoutSeconds: number;
                                    /** @description A router's upgrade starts only inside the window; one started before it closes runs to its end. A batch whose window is closed waits for the next opening. */
                                    window?: {
                                        /** @description Time of day it closes, HH:MM; before `start`: the window spans midnight */
                                        end: string;
                                        /** @description Time of day the window opens, HH:MM */
                                        start: string;
                                        /**
                                         * @description IANA time zone of start and end, e.g. Europe/Paris
                                         * @default UTC
                                         */
                                        timeZone: string;
                                    };
                                };
                                release: string;
                                revision: string;
                                target: string | null;
                            } | null;
                            id: string;
                            /**
                             * RolloutKind
                             * @description What the rollout carries: a profile revision, or a firmware image
                             * @enum {string}
                             */
                            kind: "profile" | "firmware";
                            /** @description Targets left out from the start because the plan refuses them (skipped, batch -1, never sent) */
                            leftOut: number;
                            /** @description The health gate that paused it (apply, drift, telemetry); null for other pauses */
                            pauseGate: string | null;
                            /** @description Why it is paused, in words; null unless paused */
                            pauseReason: string | null;
                            /** @description The profile (profile rollouts); null for a firmware rollout */
                            profile: string | null;
                            revision: number | null;
                            selector: unknown;
                            /**
                             * Format: date-time
                             * @description While soaking: when the soak ends
                             */
                            soakUntil: string | null;
                            startAt: string;
                            /**
                             * RolloutState
                             * @description `soaking`: a batch finished, waiting `strategy.soakSeconds` before its health gates; `awaiting_approval`: the first batch passed them and the rollout waits for POST /v1/rollouts/{id}/promote
                             * @enum {string}
                             */
                            state: "scheduled" | "running" | "soaking" | "awaiting_approval" | "paused" | "completed" | "cancelled";
                            strategy: {
                                /**
                                 * @description Routers per batch after the canary
                                 * @default 50
                                 */
                                batchSize: number;
                                /**
                                 * @description Routers in the first batch; 0 skips the canary
                                 * @default 1
                                 */
                                canary: number;
                                /**
                                 * @description Pause when (failed + rolled back) / finished exceeds this after a batch; 0 pauses on the first failure
                                 * @default 0
                                 */
                                maxFailureRatio: number;
                                /**
                                 * @description `manual`: after the first batch (the canary) and its soak and gates, the rollout waits in state `awaiting_approval` until POST /v1/rollouts/{id}/promote; `auto` goes on by itself
                                 * @default auto
                                 */
                                promote: "auto" | "manual";
                                /**
                                 * @description A sent router with no result after this long counts as failed
                                 * @default 180
                                 */
                                resultTimeoutSeconds: number;
                                /**
                                 * @description Wait this long after each batch before the next (state `soaking`), then judge the health gates on the batch's routers: no drift reported during the soak, no failed or rolled-back apply since they applied, and telemetry counters moving (a sample arrived during the soak and, where the plan counts packets, its counters grew). A gate that fails pauses the rollout with the reason. Longer than the telemetry interval (4 heartbeats, 60 s by default) plus the flush (5 s), or the telemetry gate cannot see a sample. 0: no soak, and no gates unless `promote` is `manual`
                                 * @default 0
                                 */
                                soakSeconds: number;
                            };
                            total: number;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/rollouts/{id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Cancel a rollout: unsent routers keep what they have, and routers it was sent to that did not apply it (waiting, failed, rolled back, offline) get back the desired revision and assignment they had before it, each audited as router.desired.restored */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            batchCount: number;
                            counts: {
                                [key: string]: number;
                            };
                            createdAt: string;
                            createdBy: string;
                            currentBatch: number;
                            finished: number;
                            finishedAt: string | null;
                            /** @description The image a firmware rollout installs and how; null for a profile rollout */
                            firmware: {
                                fileName: string;
                                /** @description The image's SHA-256; null once the image was removed */
                                image: string | null;
                                options: {
                                    /**
                                     * @description Allow an image older than the release a router runs
                                     * @default false
                                     */
                                    allowDowngrade: boolean;
                                    /**
                                     * @description A router that started flashing and has not come back (a Hello with a new boot id) within this is `unconfirmed`
                                     * @default 900
                                     */
                                    confirmTimeoutSeconds: number;
                                    /**
                                     * @description Keep the router's configuration (sysupgrade without -n). false: `sysupgrade -n`, needed when the image's compat_version differs from the router's (a major change is refused outright, as sysupgrade does). The agent's files are listed in /etc/sysupgrade.conf: only a kept configuration keeps the agent and its credentials
                                     * @default true
                                     */
                                    keepConfig: boolean;
                                    /**
                                     * @description A router that reports no progress for this long before flashing counts as failed (a transfer reports its bytes at least every 10 % of the image)
                                     * @default 300
                                     */
                                    stepTimeoutSeconds: number;
                                    /** @description A router's upgrade starts only inside the window; one started before it closes runs to its end. A batch whose window is closed waits for the next opening. */
                                    window?: {
                                        /** @description Time of day it closes, HH:MM; before `start`: the window spans midnight */
                                        end: string;
                                        /** @description Time of day the window opens, HH:MM */
                                        start: string;
                                        /**
                                         * @description IANA time zone of start and end, e.g. Europe/Paris
                                         * @default UTC
                                         */
                                        timeZone: string;
                                    };
                                };
                                release: string;
                                revision: string;
                                target: string | null;
                            } | null;
                            id: string;
                            /**
                             * RolloutKind
                             * @description What the rollout carries: a profile revision, or a firmware image
                             * @enum {string}
                             */
                            kind: "profile" | "firmware";
                            /** @description Targets left out from the start because the plan refuses them (skipped, batch -1, never sent) */
                            leftOut: number;
                            /** @description The health gate that paused it (apply, drift, telemetry); null for other pauses */
                            pauseGate: string | null;
                            /** @description Why it is paused, in words; null unless paused */
                            pauseReason: string | null;
                            /** @description The profile (profile rollouts); null for a firmware rollout */
                            profile: string | null;
                            revision: number | null;
                            selector: unknown;
                            /**
                             * Format: date-time
                             * @description While soaking: when the soak ends
                             */
                            soakUntil: string | null;
                            startAt: string;
                            /**
                             * RolloutState
                             * @description `soaking`: a batch finished, waiting `strategy.soakSeconds` before its health gates; `awaiting_approval`: the first batch passed them and the rollout waits for POST /v1/rollouts/{id}/promote
                             * @enum {string}
                             */
                            state: "scheduled" | "running" | "soaking" | "awaiting_approval" | "paused" | "completed" | "cancelled";
                            strategy: {
                                /**
                                 * @description Routers per batch after the canary
                                 * @default 50
                                 */
                                batchSize: number;
                                /**
                                 * @description Routers in the first batch; 0 skips the canary
                                 * @default 1
                                 */
                                canary: number;
                                /**
                                 * @description Pause when (failed + rolled back) / finished exceeds this after a batch; 0 pauses on the first failure
                                 * @default 0
                                 */
                                maxFailureRatio: number;
                                /**
                                 * @description `manual`: after the first batch (the canary) and its soak and gates, the rollout waits in state `awaiting_approval` until POST /v1/rollouts/{id}/promote; `auto` goes on by itself
                                 * @default auto
                                 */
                                promote: "auto" | "manual";
                                /**
                                 * @description A sent router with no result after this long counts as failed
                                 * @default 180
                                 */
                                resultTimeoutSeconds: number;
                                /**
                                 * @description Wait this long after each batch before the next (state `soaking`), then judge the health gates on the batch's routers: no drift reported during the soak, no failed or rolled-back apply since they applied, and telemetry counters moving (a sample arrived during the soak and, where the plan counts packets, its counters grew). A gate that fails pauses the rollout with the reason. Longer than the telemetry interval (4 heartbeats, 60 s by default) plus the flush (5 s), or the telemetry gate cannot see a sample. 0: no soak, and no gates unless `promote` is `manual`
                                 * @default 0
                                 */
                                soakSeconds: number;
                            };
                            total: number;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/rollouts/{id}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Live progress as server-sent events (event: progress, data: the rollout); ends when the rollout ends
         * @description Ends with `event: end` when the rollout ends, or with `event: error` (data in the error shape) when the controller fails midway or the stream reaches its time limit; reconnect to continue watching.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "text/event-stream": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/rollouts/{id}/pause": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Pause a rollout (running, scheduled or soaking) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            batchCount: number;
                            counts: {
                                [key: string]: number;
                            };
                            createdAt: string;
                            createdBy: string;
                            currentBatch: number;
                            finished: number;
                            finishedAt: string | null;
                            /** @description The image a firmware rollout installs and how; null for a profile rollout */
                            firmware: {
                                fileName: string;
                                /** @description The image's SHA-256; null once the image was removed */
                                image: string | null;
                                options: {
                                    /**
                                     * @description Allow an image older than the release a router runs
                                     * @default false
                                     */
                                    allowDowngrade: boolean;
                                    /**
                                     * @description A router that started flashing and has not come back (a Hello with a new boot id) within this is `unconfirmed`
                                     * @default 900
                                     */
                                    confirmTimeoutSeconds: number;
                                    /**
                                     * @description Keep the router's configuration (sysupgrade without -n). false: `sysupgrade -n`, needed when the image's compat_version differs from the router's (a major change is refused outright, as sysupgrade does). The agent's files are listed in /etc/sysupgrade.conf: only a kept configuration keeps the agent and its credentials
                                     * @default true
                                     */
                                    keepConfig: boolean;
                                    /**
                                     * @description A router that reports no progress for this long before flashing counts as failed (a transfer reports its bytes at least every 10 % of the image)
                                     * @default 300
                                     */
                                    stepTimeoutSeconds: number;
                                    /** @description A router's upgrade starts only inside the window; one started before it closes runs to its end. A batch whose window is closed waits for the next opening. */
                                    window?: {
                                        /** @description Time of day it closes, HH:MM; before `start`: the window spans midnight */
                                        end: string;
                                        /** @description Time of day the window opens, HH:MM */
                                        start: string;
                                        /**
                                         * @description IANA time zone of start and end, e.g. Europe/Paris
                                         * @default UTC
                                         */
                                        timeZone: string;
                                    };
                                };
                                release: string;
                                revision: string;
                                target: string | null;
                            } | null;
                            id: string;
                            /**
                             * RolloutKind
                             * @description What the rollout carries: a profile revision, or a firmware image
                             * @enum {string}
                             */
                            kind: "profile" | "firmware";
                            /** @description Targets left out from the start because the plan refuses them (skipped, batch -1, never sent) */
                            leftOut: number;
                            /** @description The health gate that paused it (apply, drift, telemetry); null for other pauses */
                            pauseGate: string | null;
                            /** @description Why it is paused, in words; null unless paused */
                            pauseReason: string | null;
                            /** @description The profile (profile rollouts); null for a firmware rollout */
                            profile: string | null;
                            revision: number | null;
                            selector: unknown;
                            /**
                             * Format: date-time
                             * @description While soaking: when the soak ends
                             */
                            soakUntil: string | null;
                            startAt: string;
                            /**
                             * RolloutState
                             * @description `soaking`: a batch finished, waiting `strategy.soakSeconds` before its health gates; `awaiting_approval`: the first batch passed them and the rollout waits for POST /v1/rollouts/{id}/promote
                             * @enum {string}
                             */
                            state: "scheduled" | "running" | "soaking" | "awaiting_approval" | "paused" | "completed" | "cancelled";
                            strategy: {
                                /**
                                 * @description Routers per batch after the canary
                                 * @default 50
                                 */
                                batchSize: number;
                                /**
                                 * @description Routers in the first batch; 0 skips the canary
                                 * @default 1
                                 */
                                canary: number;
                                /**
                                 * @description Pause when (failed + rolled back) / finished exceeds this after a batch; 0 pauses on the first failure
                                 * @default 0
                                 */
                                maxFailureRatio: number;
                                /**
                                 * @description `manual`: after the first batch (the canary) and its soak and gates, the rollout waits in state `awaiting_approval` until POST /v1/rollouts/{id}/promote; `auto` goes on by itself
                                 * @default auto
                                 */
                                promote: "auto" | "manual";
                                /**
                                 * @description A sent router with no result after this long counts as failed
                                 * @default 180
                                 */
                                resultTimeoutSeconds: number;
                                /**
                                 * @description Wait this long after each batch before the next (state `soaking`), then judge the health gates on the batch's routers: no drift reported during the soak, no failed or rolled-back apply since they applied, and telemetry counters moving (a sample arrived during the soak and, where the plan counts packets, its counters grew). A gate that fails pauses the rollout with the reason. Longer than the telemetry interval (4 heartbeats, 60 s by default) plus the flush (5 s), or the telemetry gate cannot see a sample. 0: no soak, and no gates unless `promote` is `manual`
                                 * @default 0
                                 */
                                soakSeconds: number;
                            };
                            total: number;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/rollouts/{id}/promote": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Promote a rollout awaiting approval after its first batch: the next batch goes out */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            batchCount: number;
                            counts: {
                                [key: string]: number;
                            };
                            createdAt: string;
                            createdBy: string;
                            currentBatch: number;
                            finished: number;
                            finishedAt: string | null;
                            /** @description The image a firmware rollout installs and how; null for a profile rollout */
                            firmware: {
                                fileName: string;
                                /** @description The image's SHA-256; null once the image was removed */
                                image: string | null;
                                options: {
                                    /**
                                     * @description Allow an image older than the release a router runs
                                     * @default false
                                     */
                                    allowDowngrade: boolean;
                                    /**
                                     * @description A router that started flashing and has not come back (a Hello with a new boot id) within this is `unconfirmed`
                                     * @default 900
                                     */
                                    confirmTimeoutSeconds: number;
                                    /**
                                     * @description Keep the router's configuration (sysupgrade without -n). false: `sysupgrade -n`, needed when the image's compat_version differs from the router's (a major change is refused outright, as sysupgrade does). The agent's files are listed in /etc/sysupgrade.conf: only a kept configuration keeps the agent and its credentials
                                     * @default true
                                     */
                                    keepConfig: boolean;
                                    /**
                                     * @description A router that reports no progress for this long before flashing counts as failed (a transfer reports its bytes at least every 10 % of the image)
                                     * @default 300
                                     */
                                    stepTimeoutSeconds: number;
                                    /** @description A router's upgrade starts only inside the window; one started before it closes runs to its end. A batch whose window is closed waits for the next opening. */
                                    window?: {
                                        /** @description Time of day it closes, HH:MM; before `start`: the window spans midnight */
                                        end: string;
                                        /** @description Time of day the window opens, HH:MM */
                                        start: string;
                                        /**
                                         * @description IANA time zone of start and end, e.g. Europe/Paris
                                         * @default UTC
                                         */
                                        timeZone: string;
                                    };
                                };
                                release: string;
                                revision: string;
                                target: string | null;
                            } | null;
                            id: string;
                            /**
                             * RolloutKind
                             * @description What the rollout carries: a profile revision, or a firmware image
                             * @enum {string}
                             */
                            kind: "profile" | "firmware";
                            /** @description Targets left out from the start because the plan refuses them (skipped, batch -1, never sent) */
                            leftOut: number;
                            /** @description The health gate that paused it (apply, drift, telemetry); null for other pauses */
                            pauseGate: string | null;
                            /** @description Why it is paused, in words; null unless paused */
                            pauseReason: string | null;
                            /** @description The profile (profile rollouts); null for a firmware rollout */
                            profile: string | null;
                            revision: number | null;
                            selector: unknown;
                            /**
                             * Format: date-time
                             * @description While soaking: when the soak ends
                             */
                            soakUntil: string | null;
                            startAt: string;
                            /**
                             * RolloutState
                             * @description `soaking`: a batch finished, waiting `strategy.soakSeconds` before its health gates; `awaiting_approval`: the first batch passed them and the rollout waits for POST /v1/rollouts/{id}/promote
                             * @enum {string}
                             */
                            state: "scheduled" | "running" | "soaking" | "awaiting_approval" | "paused" | "completed" | "cancelled";
                            strategy: {
                                /**
                                 * @description Routers per batch after the canary
                                 * @default 50
                                 */
                                batchSize: number;
                                /**
                                 * @description Routers in the first batch; 0 skips the canary
                                 * @default 1
                                 */
                                canary: number;
                                /**
                                 * @description Pause when (failed + rolled back) / finished exceeds this after a batch; 0 pauses on the first failure
                                 * @default 0
                                 */
                                maxFailureRatio: number;
                                /**
                                 * @description `manual`: after the first batch (the canary) and its soak and gates, the rollout waits in state `awaiting_approval` until POST /v1/rollouts/{id}/promote; `auto` goes on by itself
                                 * @default auto
                                 */
                                promote: "auto" | "manual";
                                /**
                                 * @description A sent router with no result after this long counts as failed
                                 * @default 180
                                 */
                                resultTimeoutSeconds: number;
                                /**
                                 * @description Wait this long after each batch before the next (state `soaking`), then judge the health gates on the batch's routers: no drift reported during the soak, no failed or rolled-back apply since they applied, and telemetry counters moving (a sample arrived during the soak and, where the plan counts packets, its counters grew). A gate that fails pauses the rollout with the reason. Longer than the telemetry interval (4 heartbeats, 60 s by default) plus the flush (5 s), or the telemetry gate cannot see a sample. 0: no soak, and no gates unless `promote` is `manual`
                                 * @default 0
                                 */
                                soakSeconds: number;
                            };
                            total: number;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/rollouts/{id}/resume": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Resume a paused rollout: the failures so far are accepted, and a batch a health gate paused on goes on without soaking again */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            batchCount: number;
                            counts: {
                                [key: string]: number;
                            };
                            createdAt: string;
                            createdBy: string;
                            currentBatch: number;
                            finished: number;
                            finishedAt: string | null;
                            /** @description The image a firmware rollout installs and how; null for a profile rollout */
                            firmware: {
                                fileName: string;
                                /** @description The image's SHA-256; null once the image was removed */
                                image: string | null;
                                options: {
                                    /**
                                     * @description Allow an image older than the release a router runs
                                     * @default false
                                     */
                                    allowDowngrade: boolean;
                                    /**
                                     * @description A router that started flashing and has not come back (a Hello with a new boot id) within this is `unconfirmed`
                                     * @default 900
                                     */
                                    confirmTimeoutSeconds: number;
                                    /**
                                     * @description Keep the router's configuration (sysupgrade without -n). false: `sysupgrade -n`, needed when the image's compat_version differs from the router's (a major change is refused outright, as sysupgrade does). The agent's files are listed in /etc/sysupgrade.conf: only a kept configuration keeps the agent and its credentials
                                     * @default true
                                     */
                                    keepConfig: boolean;
                                    /**
                                     * @description A router that reports no progress for this long before flashing counts as failed (a transfer reports its bytes at least every 10 % of the image)
                                     * @default 300
                                     */
                                    stepTimeoutSeconds: number;
                                    /** @description A router's upgrade starts only inside the window; one started before it closes runs to its end. A batch whose window is closed waits for the next opening. */
                                    window?: {
                                        /** @description Time of day it closes, HH:MM; before `start`: the window spans midnight */
                                        end: string;
                                        /** @description Time of day the window opens, HH:MM */
                                        start: string;
                                        /**
                                         * @description IANA time zone of start and end, e.g. Europe/Paris
                                         * @default UTC
                                         */
                                        timeZone: string;
                                    };
                                };
                                release: string;
                                revision: string;
                                target: string | null;
                            } | null;
                            id: string;
                            /**
                             * RolloutKind
                             * @description What the rollout carries: a profile revision, or a firmware image
                             * @enum {string}
                             */
                            kind: "profile" | "firmware";
                            /** @description Targets left out from the start because the plan refuses them (skipped, batch -1, never sent) */
                            leftOut: number;
                            /** @description The health gate that paused it (apply, drift, telemetry); null for other pauses */
                            pauseGate: string | null;
                            /** @description Why it is paused, in words; null unless paused */
                            pauseReason: string | null;
                            /** @description The profile (profile rollouts); null for a firmware rollout */
                            profile: string | null;
                            revision: number | null;
                            selector: unknown;
                            /**
                             * Format: date-time
                             * @description While soaking: when the soak ends
                             */
                            soakUntil: string | null;
                            startAt: string;
                            /**
                             * RolloutState
                             * @description `soaking`: a batch finished, waiting `strategy.soakSeconds` before its health gates; `awaiting_approval`: the first batch passed them and the rollout waits for POST /v1/rollouts/{id}/promote
                             * @enum {string}
                             */
                            state: "scheduled" | "running" | "soaking" | "awaiting_approval" | "paused" | "completed" | "cancelled";
                            strategy: {
                                /**
                                 * @description Routers per batch after the canary
                                 * @default 50
                                 */
                                batchSize: number;
                                /**
                                 * @description Routers in the first batch; 0 skips the canary
                                 * @default 1
                                 */
                                canary: number;
                                /**
                                 * @description Pause when (failed + rolled back) / finished exceeds this after a batch; 0 pauses on the first failure
                                 * @default 0
                                 */
                                maxFailureRatio: number;
                                /**
                                 * @description `manual`: after the first batch (the canary) and its soak and gates, the rollout waits in state `awaiting_approval` until POST /v1/rollouts/{id}/promote; `auto` goes on by itself
                                 * @default auto
                                 */
                                promote: "auto" | "manual";
                                /**
                                 * @description A sent router with no result after this long counts as failed
                                 * @default 180
                                 */
                                resultTimeoutSeconds: number;
                                /**
                                 * @description Wait this long after each batch before the next (state `soaking`), then judge the health gates on the batch's routers: no drift reported during the soak, no failed or rolled-back apply since they applied, and telemetry counters moving (a sample arrived during the soak and, where the plan counts packets, its counters grew). A gate that fails pauses the rollout with the reason. Longer than the telemetry interval (4 heartbeats, 60 s by default) plus the flush (5 s), or the telemetry gate cannot see a sample. 0: no soak, and no gates unless `promote` is `manual`
                                 * @default 0
                                 */
                                soakSeconds: number;
                            };
                            total: number;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/rollouts/{id}/targets": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Per-router states of a rollout */
        get: {
            parameters: {
                query: {
                    cursor?: string;
                    limit: number;
                    state?: "queued" | "sent" | "applied" | "failed" | "rolled_back" | "skipped" | "upgraded" | "unconfirmed";
                };
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            items: {
                                batch: number;
                                /** @description While transferring: bytes on the router so far */
                                bytesDone: number | null;
                                error: string | null;
                                /**
                                 * FirmwareStep
                                 * @description Firmware rollouts: the step the router reported last (checking room, transferring, verifying the SHA-256, testing with sysupgrade -T, flashing); null before its first report
                                 * @enum {string|null}
                                 */
                                firmwareStep: "checking" | "transferring" | "verifying" | "testing" | "flashing" | null;
                                /** Format: date-time */
                                flashedAt: string | null;
                                name: string;
                                /**
                                 * Format: date-time
                                 * @description When the desired state was sent again to this router for want of a result
                                 */
                                redeliveredAt: string | null;
                                routerId: string;
                                /** Format: date-time */
                                sentAt: string | null;
                                /**
                                 * RolloutTargetState
                                 * @enum {string}
                                 */
                                state: "queued" | "sent" | "applied" | "failed" | "rolled_back" | "skipped" | "upgraded" | "unconfirmed";
                                /** Format: date-time */
                                stepAt: string | null;
                                /** @description What the router said with its last step */
                                stepDetail: string | null;
                            }[];
                            nextCursor: string | null;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/routers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List routers, filtered and sorted, with keyset pagination
         * @description By name unless `sort` says otherwise, in natural order (digit runs compare as numbers: r2 before r10; letters case-insensitively); `-name` for descending, `created` oldest first, and so on. A cursor belongs to the sort it was made for. Filters combine with AND. Decommissioned routers are left out unless `decommissioned` is include or only.
         */
        get: {
            parameters: {
                query: {
                    /** @description Status of the newest apply result */
                    applyResult?: "applied" | "failed" | "rolled_back" | "pending" | "none";
                    /** @description nextCursor of the previous page */
                    cursor?: string;
                    /** @description The datapath the router runs, as its agent last reported it */
                    datapath?: "tcx" | "cls_bpf" | "nftables" | "iptables" | "none" | "unknown";
                    /** @description Decommissioned routers are left out (exclude, the default); include them, or list only them */
                    decommissioned?: "exclude" | "include" | "only";
                    /** @description What the last drift report found */
                    drift?: "drifted" | "clean" | "unreported";
                    /** @description eBPF (our TC programs load): yes (probed, or predicted where nothing was probed), probed (the probe found it), predicted (not probed yet), no (the probe, or unprobed the prediction, says not), unknown (never reported) */
                    ebpf?: "yes" | "probed" | "predicted" | "no" | "unknown";
                    /** @description Hardware flow offload: yes (probed, or predicted where nothing was probed), probed (the probe found it), predicted (not probed yet), no (the probe, or unprobed the prediction, says not), unknown (never reported) */
                    hardwareOffload?: "yes" | "probed" | "predicted" | "no" | "unknown";
                    limit: number;
                    /** @description Model name (case-insensitive) */
                    model?: string;
                    /** @description The flow offload the router runs, as its agent last reported it */
                    offload?: "hardware" | "software" | "off" | "unsupported" | "unknown";
                    placement?: "on_router" | "proxy" | "unknown";
                    /** @description Case-insensitive substring of the name */
                    q?: string;
                    /** @description OpenWrt release or release prefix: "23.05" matches 23.05.x */
                    release?: string;
                    /** @description pending: a desired revision differs from the applied one */
                    revisionState?: "in_sync" | "pending";
                    /** @description SoC, e.g. MT7621 (case-insensitive) */
                    soc?: string;
                    /** @description Software flow offload: yes (probed, or predicted where nothing was probed), probed (the probe found it), predicted (not probed yet), no (the probe, or unprobed the prediction, says not), unknown (never reported) */
                    softwareOffload?: "yes" | "probed" | "predicted" | "no" | "unknown";
                    sort?: "created" | "-created" | "name" | "-name" | "status" | "-status" | "soc" | "-soc" | "model" | "-model" | "release" | "-release" | "lastSeen" | "-lastSeen";
                    status?: "online" | "offline" | "never_seen";
                    /** @description Old spelling of `tags`, accepted until 0.3 */
                    tag?: string[];
                    /** @description Tags the router must all carry; repeat the parameter or separate with commas */
                    tags?: string[];
                    /** @description TCX attach (bpf_link): yes (probed, or predicted where nothing was probed), probed (the probe found it), predicted (not probed yet), no (the probe, or unprobed the prediction, says not), unknown (never reported) */
                    tcx?: "yes" | "probed" | "predicted" | "no" | "unknown";
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            items: components["schemas"]["def-0"][];
                            nextCursor: string | null;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/routers/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One router with its facts, capabilities, connection status and applied revision */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            agentVersion: string | null;
                            appliedRevision: {
                                profile: string;
                                revision: number;
                            } | null;
                            arch: string | null;
                            /** Format: date-time */
                            connectedAt: string | null;
                            /** Format: date-time */
                            createdAt: string;
                            /**
                             * @description The datapath it runs, as its agent last reported it (null: never reported)
                             * @enum {string|null}
                             */
                            datapath: "tcx" | "cls_bpf" | "nftables" | "iptables" | "none" | null;
                            /** Format: date-time */
                            decommissionedAt: string | null;
                            /** @description The revision a rollout wants here; pending until it is the applied one */
                            desiredRevision: {
                                profile: string;
                                revision: number;
                            } | null;
                            /** @description Whether the last drift report found differences */
                            drifted: boolean | null;
                            ebpf: {
                                /** @description Predicted from the facts (null: not said) */
                                predicted: boolean | null;
                                /** @description Found by the on-router probe (null: not probed) */
                                probed: boolean | null;
                            };
                            endian: string | null;
                            hardwareOffload: {
                                /** @description Predicted from the facts (null: not said) */
                                predicted: boolean | null;
                                /** @description Found by the on-router probe (null: not probed) */
                                probed: boolean | null;
                            };
                            id: string;
                            identity: string;
                            kernel: string | null;
                            /**
                             * ApplyStatus
                             * @enum {string|null}
                             */
                            lastApplyStatus: "pending" | "applied" | "failed" | "rolled_back" | null;
                            /** Format: date-time */
                            lastSeenAt: string | null;
                            model: string | null;
                            name: string;
                            /**
                             * @description The flow offload it runs, as its agent last reported it (null: never reported)
                             * @enum {string|null}
                             */
                            offload: "hardware" | "software" | "off" | "unsupported" | null;
                            openwrt: {
                                /** @description The OpenWrt release: "23.05.3", "SNAPSHOT" */
                                release: string;
                                target: string | null;
                                /**
                                 * @deprecated
                                 * @description Old spelling of `release`; removed in 0.3
                                 */
                                version: string;
                            } | null;
                            placement: string;
                            soc: string | null;
                            softwareOffload: {
                                /** @description Predicted from the facts (null: not said) */
                                predicted: boolean | null;
                                /** @description Found by the on-router probe (null: not probed) */
                                probed: boolean | null;
                            };
                            /**
                             * ConnectionStatus
                             * @enum {string}
                             */
                            status: "online" | "offline" | "never_seen";
                            tags: string[];
                            tcx: {
                                /** @description Predicted from the facts (null: not said) */
                                predicted: boolean | null;
                                /** @description Found by the on-router probe (null: not probed) */
                                probed: boolean | null;
                            };
                            /** Format: date-time */
                            updatedAt: string;
                        } & {
                            /** @description { predicted, probed }: each of hardwareOffload, softwareOffload, ebpf, tcx with a reason */
                            capabilities: unknown;
                            /** @description Fact sheet the agent collected (SoC, CPU, kernel, OpenWrt release, devices, unknowns with reasons) */
                            facts: unknown;
                            /** @description Datapath and offload state last reported by the agent */
                            liveState: unknown;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/routers/{id}/apply-results": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A router's apply results with their evidence, newest first, with keyset pagination */
        get: {
            parameters: {
                query: {
                    /** @description nextCursor of the previous page */
                    cursor?: string;
                    limit: number;
                };
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            items: {
                                error: string | null;
                                /** @description What the agent read back after the apply: datapath, attached programs, offload settings, trigger (wan-changed, reboot) */
                                evidence: unknown;
                                /** Format: date-time */
                                finishedAt: string | null;
                                id: string;
                                revision: {
                                    profile: string;
                                    revision: number;
                                } | null;
                                /** Format: date-time */
                                startedAt: string;
                                /**
                                 * ApplyStatus
                                 * @enum {string}
                                 */
                                status: "pending" | "applied" | "failed" | "rolled_back";
                            }[];
                            nextCursor: string | null;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/routers/{id}/assignment": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Assign a profile to a router, optionally pinned to a revision, with per-router overrides
         * @description Overrides are a partial profile spec laid over the revision (e.g. {"l3Rewrite":{"ttl":{"value":128}}}); the result must be a valid spec.
         */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        overrides?: {
                            [key: string]: unknown;
                        } | null;
                        pinnedRevision?: number | null;
                        profile: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            overrides: unknown;
                            pinnedRevision: number | null;
                            profile: string;
                            routerId: string;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/routers/{id}/certificates": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A router's client certificates, newest first */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            items: {
                                fingerprint: string;
                                /** Format: date-time */
                                notAfter: string;
                                /** Format: date-time */
                                notBefore: string;
                                /** Format: date-time */
                                revokedAt: string | null;
                                serial: string;
                                state: "valid" | "expired" | "revoked";
                            }[];
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/routers/{id}/commands": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a command to one router now (or when it connects, before the deadline)
         * @description Refused with 409 and the reason when the router cannot take it: decommissioned, nothing applied to re-apply, no earlier applied revision to roll back to.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /**
                         * @description An offline router that connects within this many seconds still gets the command
                         * @default 600
                         */
                        deadlineSeconds?: number;
                        kind: ("reprobe" | "reapply" | "rollback" | "detach" | "check_drift" | "reboot" | "diagnostics") | ("re_probe" | "re_apply");
                        /**
                         * @description A router with the command that has not answered after this long is timed_out
                         * @default 60
                         */
                        timeoutSeconds?: number;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            cancelledBy: string | null;
                            counts: {
                                cancelled: number;
                                failed: number;
                                offline: number;
                                queued: number;
                                refused: number;
                                sent: number;
                                succeeded: number;
                                timed_out: number;
                            };
                            /** Format: date-time */
                            createdAt: string;
                            createdBy: string;
                            /** Format: date-time */
                            deadline: string;
                            /** @description Routers with an outcome (offline ones count once the command has ended) */
                            finished: number;
                            /** Format: date-time */
                            finishedAt: string | null;
                            id: string;
                            /**
                             * CommandKind
                             * @description reboot and detach need the admin scope; the others write
                             * @enum {string}
                             */
                            kind: "reprobe" | "reapply" | "rollback" | "detach" | "check_drift" | "reboot" | "diagnostics";
                            maxInFlight: number;
                            /** @description The selector as given; { ids: [id] } for a command on one router */
                            selector: unknown;
                            /**
                             * CommandState
                             * @enum {string}
                             */
                            state: "running" | "completed" | "cancelled";
                            timeoutSeconds: number;
                            total: number;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/routers/{id}/credential": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Describe a router's SSH credential (never the secret) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            authType: "password" | "privateKey";
                            /** Format: date-time */
                            createdAt: string;
                            hasPassphrase: boolean;
                            /** @description The secret itself is never returned */
                            hasSecret: boolean;
                            host: string;
                            hostKeyFingerprint: string | null;
                            port: number;
                            proxyIdentity: string | null;
                            routerId: string;
                            /** Format: date-time */
                            updatedAt: string;
                            username: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        /** Store the SSH credential a proxy agent uses for this router (encrypted at rest, never returned) */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        authType: "password" | "privateKey";
                        host: string;
                        hostKeyFingerprint?: string;
                        passphrase?: string;
                        password?: string;
                        port?: number;
                        privateKey?: string;
                        proxyIdentity?: string;
                        username: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            authType: "password" | "privateKey";
                            /** Format: date-time */
                            createdAt: string;
                            hasPassphrase: boolean;
                            /** @description The secret itself is never returned */
                            hasSecret: boolean;
                            host: string;
                            hostKeyFingerprint: string | null;
                            port: number;
                            proxyIdentity: string | null;
                            routerId: string;
                            /** Format: date-time */
                            updatedAt: string;
                            username: string;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        post?: never;
        /** Delete a router's SSH credential */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/routers/{id}/decommission": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Decommission a router: revoke its certificates, close its stream, refuse it from now on */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** Format: date-time */
                            decommissionedAt: string;
                            id: string;
                            identity: string;
                            revokedCertificates: number;
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/routers/{id}/drift": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The router's last drift report (from a drift check or the agent's timer), or null before the first */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            report: {
                                actor: string;
                                /** Format: date-time */
                                at: string;
                                /** @description Empty: the router runs exactly its applied plan */
                                differences: {
                                    actual: string;
                                    expected: string;
                                    path: string;
                                }[];
                                /** @description The drift.reported audit event that holds the report */
                                eventId: string;
                                revision: {
                                    profile: string;
                                    revision: number;
                                } | null;
                            } | null;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/routers/{id}/plan": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Preview the plan a router would get (a dry run: nothing is sent)
         * @description Without parameters: the router's assignment (with its overrides). With `profile` (and `revision`): that profile instead.
         */
        get: {
            parameters: {
                query?: {
                    profile?: string;
                    revision?: number;
                };
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            applied: {
                                planHash: string | null;
                                profile: string;
                                revision: number;
                            } | null;
                            changes: {
                                after?: unknown;
                                before?: unknown;
                                op: string;
                                path: string;
                            }[];
                            effective: {
                                overrides: unknown;
                                profile: string;
                                revision: number;
                            } | null;
                            name: string;
                            /** @description resolvePlan output: datapath, offload, conflicts, decisions with reasons, planHash */
                            plan: unknown;
                            routerId: string;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/routers/{id}/re-enroll": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Let a router already in the fleet (or decommissioned) enroll again: a single-use token bound to its id; using it revokes its certificates */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @default 3600 */
                        expiresInSeconds?: number;
                    } | null;
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** Format: date-time */
                            createdAt: string;
                            createdBy: string;
                            /** Format: date-time */
                            expiresAt: string;
                            id: string;
                            /** Format: date-time */
                            revokedAt: string | null;
                            /** @description Set on an admin re-enroll token: the router it may re-key */
                            routerId: string | null;
                            routerName: string | null;
                            state: "active" | "used" | "revoked" | "expired";
                            tags: string[];
                            /** Format: date-time */
                            usedAt: string | null;
                            usedByRouterId: string | null;
                        } & {
                            /** @description SHA-256 of the controller CA certificate; the agent pins it */
                            caFingerprint: string | null;
                            grpcAddress: string;
                            /** @description The secret: shown only here */
                            token: string;
                        } & {
                            identity: string;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/routers/{id}/revisions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The revision a router runs (applied), the one it should run (desired) and its assignment */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            applied: {
                                profile: string;
                                revision: number;
                            } | null;
                            assignment: {
                                overrides: unknown;
                                pinnedRevision: number | null;
                                profile: string;
                            } | null;
                            desired: ({
                                profile: string;
                                revision: number;
                            } & {
                                /** @description The rollout that set it, when one did */
                                rolloutId: string | null;
                            }) | (never | null);
                            /** @description What the router does next, and what would change it, in words */
                            next: string;
                            /** @description The rollback that set what the router runs, while it holds (state held_after_rollback) */
                            rollback: {
                                /** Format: date-time */
                                at: string;
                                reason: string;
                                revision: {
                                    profile: string;
                                    revision: number;
                                };
                                to: {
                                    profile: string;
                                    revision: number;
                                } | null;
                            } | null;
                            /**
                             * @description in_step: runs what the controller wants; held_after_rollback: a rollback set what it runs and the controller now wants that; on_its_way / waiting_for_router: the desired revision is sent / is sent when it connects; failed: the desired revision failed here; nothing_to_run; decommissioned
                             * @enum {string}
                             */
                            state: "in_step" | "held_after_rollback" | "on_its_way" | "waiting_for_router" | "failed" | "nothing_to_run" | "decommissioned";
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/routers/{id}/tags": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Replace a router's tags (groups are tags, e.g. group:canary) */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        tags: string[];
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            id: string;
                            tags: string[];
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/routers/{id}/telemetry": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A router's telemetry over time: packets seen / rewritten per second per program, offloaded flows, agent RSS
         * @description Rates come from deltas of the cumulative counters; a counter reset (reboot, re-attach) counts from zero, never negative. One point per step; a step without data has coveredSeconds 0.
         */
        get: {
            parameters: {
                query?: {
                    /** @description Start of the range (default: one hour before to) */
                    from?: string;
                    /** @description Seconds per point, a multiple of 60 (of 3600 for ranges older than the minute retention); default: the finest giving at most 360 points; at most 1440 points */
                    step?: number;
                    /** @description End of the range (default: now) */
                    to?: string;
                };
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** Format: date-time */
                            from: string;
                            points: {
                                agentRssBytes: number | null;
                                /** Format: date-time */
                                at: string;
                                /** @description Seconds of counting behind this point (0: no data, a gap) */
                                coveredSeconds: number;
                                mode: ("unknown" | "none" | "tcx" | "cls_bpf" | "nftables" | "iptables") | (never | null);
                                offloadedFlows: {
                                    hardware: number;
                                    software: number;
                                } | null;
                                /** @description Programs that reported in this step */
                                programs: {
                                    program: "set_ip_id_zero" | "set_ip_ttl" | "set_tcp_syn_window" | "clear_tcp_syn_ts";
                                    rewrittenPerSecond: number;
                                    seenPerSecond: number;
                                }[];
                            }[];
                            resolution: "minute" | "hour";
                            routerId: string;
                            /** @description Seconds per point */
                            step: number;
                            /** Format: date-time */
                            to: string;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/routers/bulk": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Tag, untag or assign a profile to many routers: by ids, or all that match a filter
         * @description Give exactly one of `ids` or `filter` (the listing's filter; {} is every router not decommissioned), at most 10000 routers. Each changed router is its own audit event. `assign` sets the profile (optionally pinned) without overrides, as PUT /v1/routers/{id}/assignment does without them.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @enum {string} */
                        action: "tag" | "untag" | "assign";
                        filter?: {
                            /**
                             * ApplyResultFilter
                             * @description Status of the newest apply result
                             * @enum {string}
                             */
                            applyResult?: "applied" | "failed" | "rolled_back" | "pending" | "none";
                            /**
                             * DatapathMode
                             * @description The datapath the router runs, as its agent last reported it
                             * @enum {string}
                             */
                            datapath?: "tcx" | "cls_bpf" | "nftables" | "iptables" | "none" | "unknown";
                            /**
                             * Decommissioned
                             * @description Decommissioned routers are left out (exclude, the default); include them, or list only them
                             * @enum {string}
                             */
                            decommissioned?: "exclude" | "include" | "only";
                            /**
                             * DriftState
                             * @description What the last drift report found
                             * @enum {string}
                             */
                            drift?: "drifted" | "clean" | "unreported";
                            /**
                             * CapabilityState
                             * @description eBPF (our TC programs load): yes (probed, or predicted where nothing was probed), probed (the probe found it), predicted (not probed yet), no (the probe, or unprobed the prediction, says not), unknown (never reported)
                             * @enum {string}
                             */
                            ebpf?: "yes" | "probed" | "predicted" | "no" | "unknown";
                            /**
                             * CapabilityState
                             * @description Hardware flow offload: yes (probed, or predicted where nothing was probed), probed (the probe found it), predicted (not probed yet), no (the probe, or unprobed the prediction, says not), unknown (never reported)
                             * @enum {string}
                             */
                            hardwareOffload?: "yes" | "probed" | "predicted" | "no" | "unknown";
                            /** @description Model name (case-insensitive) */
                            model?: string;
                            /**
                             * OffloadMode
                             * @description The flow offload the router runs, as its agent last reported it
                             * @enum {string}
                             */
                            offload?: "hardware" | "software" | "off" | "unsupported" | "unknown";
                            /**
                             * Placement
                             * @enum {string}
                             */
                            placement?: "on_router" | "proxy" | "unknown";
                            /** @description Case-insensitive substring of the name */
                            q?: string;
                            /** @description OpenWrt release or release prefix: "23.05" matches 23.05.x */
                            release?: string;
                            /**
                             * RevisionState
                             * @description pending: a desired revision differs from the applied one
                             * @enum {string}
                             */
                            revisionState?: "in_sync" | "pending";
                            /** @description SoC, e.g. MT7621 (case-insensitive) */
                            soc?: string;
                            /**
                             * CapabilityState
                             * @description Software flow offload: yes (probed, or predicted where nothing was probed), probed (the probe found it), predicted (not probed yet), no (the probe, or unprobed the prediction, says not), unknown (never reported)
                             * @enum {string}
                             */
                            softwareOffload?: "yes" | "probed" | "predicted" | "no" | "unknown";
                            /**
                             * ConnectionStatus
                             * @enum {string}
                             */
                            status?: "online" | "offline" | "never_seen";
                            /**
                             * @deprecated
                             * @description Old spelling of `tags`, accepted until 0.3
                             */
                            tag?: string[];
                            /** @description Tags the router must all carry; repeat the parameter or separate with commas */
                            tags?: string[];
                            /**
                             * CapabilityState
                             * @description TCX attach (bpf_link): yes (probed, or predicted where nothing was probed), probed (the probe found it), predicted (not probed yet), no (the probe, or unprobed the prediction, says not), unknown (never reported)
                             * @enum {string}
                             */
                            tcx?: "yes" | "probed" | "predicted" | "no" | "unknown";
                        };
                        ids?: string[];
                        pinnedRevision?: number | null;
                        profile?: string;
                        tags?: string[];
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            action: "tag" | "untag" | "assign";
                            /** @description Routers changed (each audited) */
                            changed: number;
                            /** @description Routers the ids or filter named */
                            matched: number;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/routers/counts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * How many routers match a filter: total, online, offline, never seen, drifted, failed, pending
         * @description Decommissioned routers are not counted unless the filter asks for them (`decommissioned`).
         */
        get: {
            parameters: {
                query?: {
                    /** @description Status of the newest apply result */
                    applyResult?: "applied" | "failed" | "rolled_back" | "pending" | "none";
                    /** @description The datapath the router runs, as its agent last reported it */
                    datapath?: "tcx" | "cls_bpf" | "nftables" | "iptables" | "none" | "unknown";
                    /** @description Decommissioned routers are left out (exclude, the default); include them, or list only them */
                    decommissioned?: "exclude" | "include" | "only";
                    /** @description What the last drift report found */
                    drift?: "drifted" | "clean" | "unreported";
                    /** @description eBPF (our TC programs load): yes (probed, or predicted where nothing was probed), probed (the probe found it), predicted (not probed yet), no (the probe, or unprobed the prediction, says not), unknown (never reported) */
                    ebpf?: "yes" | "probed" | "predicted" | "no" | "unknown";
                    /** @description Hardware flow offload: yes (probed, or predicted where nothing was probed), probed (the probe found it), predicted (not probed yet), no (the probe, or unprobed the prediction, says not), unknown (never reported) */
                    hardwareOffload?: "yes" | "probed" | "predicted" | "no" | "unknown";
                    /** @description Model name (case-insensitive) */
                    model?: string;
                    /** @description The flow offload the router runs, as its agent last reported it */
                    offload?: "hardware" | "software" | "off" | "unsupported" | "unknown";
                    placement?: "on_router" | "proxy" | "unknown";
                    /** @description Case-insensitive substring of the name */
                    q?: string;
                    /** @description OpenWrt release or release prefix: "23.05" matches 23.05.x */
                    release?: string;
                    /** @description pending: a desired revision differs from the applied one */
                    revisionState?: "in_sync" | "pending";
                    /** @description SoC, e.g. MT7621 (case-insensitive) */
                    soc?: string;
                    /** @description Software flow offload: yes (probed, or predicted where nothing was probed), probed (the probe found it), predicted (not probed yet), no (the probe, or unprobed the prediction, says not), unknown (never reported) */
                    softwareOffload?: "yes" | "probed" | "predicted" | "no" | "unknown";
                    status?: "online" | "offline" | "never_seen";
                    /** @description Old spelling of `tags`, accepted until 0.3 */
                    tag?: string[];
                    /** @description Tags the router must all carry; repeat the parameter or separate with commas */
                    tags?: string[];
                    /** @description TCX attach (bpf_link): yes (probed, or predicted where nothing was probed), probed (the probe found it), predicted (not probed yet), no (the probe, or unprobed the prediction, says not), unknown (never reported) */
                    tcx?: "yes" | "probed" | "predicted" | "no" | "unknown";
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description The last drift report found differences */
                            drifted: number;
                            /** @description The newest apply result failed or was rolled back */
                            failed: number;
                            neverSeen: number;
                            offline: number;
                            online: number;
                            /** @description A desired revision not applied yet */
                            pending: number;
                            total: number;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/routers/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Which routers changed (status, revisions, apply result, drift, tags), as server-sent events
         * @description `event: ready` once the feed runs, then `event: changed` with `{ ids, truncated }` at most once a second (changes coalesced; `truncated` means more changed than listed: read the table again). Read from the database, so changes through any replica show. Ends with `event: error` at the time limit; reconnect.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/routers/ids": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The ids of the routers that match a filter (at most 10000), for a selector
         * @description `total` says how many match; when it exceeds the ids returned the selection is too large to act on.
         */
        get: {
            parameters: {
                query?: {
                    /** @description Status of the newest apply result */
                    applyResult?: "applied" | "failed" | "rolled_back" | "pending" | "none";
                    /** @description The datapath the router runs, as its agent last reported it */
                    datapath?: "tcx" | "cls_bpf" | "nftables" | "iptables" | "none" | "unknown";
                    /** @description Decommissioned routers are left out (exclude, the default); include them, or list only them */
                    decommissioned?: "exclude" | "include" | "only";
                    /** @description What the last drift report found */
                    drift?: "drifted" | "clean" | "unreported";
                    /** @description eBPF (our TC programs load): yes (probed, or predicted where nothing was probed), probed (the probe found it), predicted (not probed yet), no (the probe, or unprobed the prediction, says not), unknown (never reported) */
                    ebpf?: "yes" | "probed" | "predicted" | "no" | "unknown";
                    /** @description Hardware flow offload: yes (probed, or predicted where nothing was probed), probed (the probe found it), predicted (not probed yet), no (the probe, or unprobed the prediction, says not), unknown (never reported) */
                    hardwareOffload?: "yes" | "probed" | "predicted" | "no" | "unknown";
                    /** @description Model name (case-insensitive) */
                    model?: string;
                    /** @description The flow offload the router runs, as its agent last reported it */
                    offload?: "hardware" | "software" | "off" | "unsupported" | "unknown";
                    placement?: "on_router" | "proxy" | "unknown";
                    /** @description Case-insensitive substring of the name */
                    q?: string;
                    /** @description OpenWrt release or release prefix: "23.05" matches 23.05.x */
                    release?: string;
                    /** @description pending: a desired revision differs from the applied one */
                    revisionState?: "in_sync" | "pending";
                    /** @description SoC, e.g. MT7621 (case-insensitive) */
                    soc?: string;
                    /** @description Software flow offload: yes (probed, or predicted where nothing was probed), probed (the probe found it), predicted (not probed yet), no (the probe, or unprobed the prediction, says not), unknown (never reported) */
                    softwareOffload?: "yes" | "probed" | "predicted" | "no" | "unknown";
                    status?: "online" | "offline" | "never_seen";
                    /** @description Old spelling of `tags`, accepted until 0.3 */
                    tag?: string[];
                    /** @description Tags the router must all carry; repeat the parameter or separate with commas */
                    tags?: string[];
                    /** @description TCX attach (bpf_link): yes (probed, or predicted where nothing was probed), probed (the probe found it), predicted (not probed yet), no (the probe, or unprobed the prediction, says not), unknown (never reported) */
                    tcx?: "yes" | "probed" | "predicted" | "no" | "unknown";
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            ids: string[];
                            total: number;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/session": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Who am I: the caller, its role and scopes */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** Format: date-time */
                            absoluteExpiresAt: string | null;
                            /** @description Who the audit history names: account:<name> or token:<owner> */
                            actor: string;
                            /** @description Send as X-CSRF-Token with every write made with the session cookie; null for bearer tokens */
                            csrfToken: string | null;
                            fleetName: string;
                            /** Format: date-time */
                            idleExpiresAt: string | null;
                            /** @description account: an operator signed in with name and password; token: an API token */
                            kind: "account" | "token";
                            /** @description The account name, or the token owner */
                            name: string;
                            role: ("read" | "write" | "admin") | (never | null);
                            scopes: string[];
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        put?: never;
        /**
         * Sign in with an account name and password; sets the session cookie
         * @description Answers the session (with its csrfToken, to send as X-CSRF-Token on every write) and sets the HttpOnly cookie wrtfleet_session. A wrong name or password, or a disabled account, is 401 alike; too many failures from one address or for one name are 429 with Retry-After, and too many password checks waiting at once 503 with Retry-After.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description Letters, digits and . _ @ -, starting with a letter or digit */
                        name: string;
                        password: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** Format: date-time */
                            absoluteExpiresAt: string | null;
                            /** @description Who the audit history names: account:<name> or token:<owner> */
                            actor: string;
                            /** @description Send as X-CSRF-Token with every write made with the session cookie; null for bearer tokens */
                            csrfToken: string | null;
                            fleetName: string;
                            /** Format: date-time */
                            idleExpiresAt: string | null;
                            /** @description account: an operator signed in with name and password; token: an API token */
                            kind: "account" | "token";
                            /** @description The account name, or the token owner */
                            name: string;
                            role: ("read" | "write" | "admin") | (never | null);
                            scopes: string[];
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        /**
         * Sign out: ends the session and clears its cookie
         * @description With a bearer token there is no session to end: 204 and nothing changes (revoke tokens with DELETE /v1/tokens/:id).
         */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/session/password": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Change the signed-in account's own password (needs the current one)
         * @description The account's other sessions end; this one stays signed in. A wrong current password is 403 and counts as a failed sign-in of the account and of the address: past their limits the change is 429 with Retry-After, and 503 with Retry-After when too many password checks wait at once.
         */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        currentPassword: string;
                        /** @description At least 12 characters, no control characters */
                        newPassword: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/silences": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Silences not yet ended (all of them with ended=include) */
        get: {
            parameters: {
                query?: {
                    ended?: "exclude" | "include";
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            items: {
                                active: boolean;
                                comment: string;
                                /** Format: date-time */
                                createdAt: string;
                                createdBy: string;
                                /** Format: date-time */
                                endsAt: string;
                                id: string;
                                /** @description The rule's name; null: every rule */
                                rule: string | null;
                                selector: unknown | (never | null);
                                /** Format: date-time */
                                startsAt: string;
                            }[];
                        };
                    };
                };
            };
        };
        put?: never;
        /** Silence the alerts of a rule, of some routers, or both, for a time window */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        comment: string;
                        /** Format: date-time */
                        endsAt: string;
                        /** @description A rule's name */
                        rule?: string;
                        selector?: {
                            /**
                             * @description Every router (must be said explicitly)
                             * @enum {boolean}
                             */
                            all?: true;
                            /** @description Router ids */
                            ids?: string[];
                            /**
                             * @deprecated
                             * @description Old spelling of `release`, accepted until 0.3. OpenWrt releases or release prefixes: "23.05" matches 23.05.x
                             */
                            openwrt?: string[];
                            /** @description OpenWrt releases or release prefixes: "23.05" matches 23.05.x */
                            release?: string[];
                            /** @description SoCs, e.g. MT7621 */
                            soc?: string[];
                            /** @description Tags the router must all carry */
                            tags?: string[];
                        };
                        /** Format: date-time */
                        startsAt?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            active: boolean;
                            comment: string;
                            /** Format: date-time */
                            createdAt: string;
                            createdBy: string;
                            /** Format: date-time */
                            endsAt: string;
                            id: string;
                            /** @description The rule's name; null: every rule */
                            rule: string | null;
                            selector: unknown | (never | null);
                            /** Format: date-time */
                            startsAt: string;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/silences/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** End a silence now */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/telemetry": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The fleet's telemetry over time, per datapath mode and program (sums of the routers' rates) */
        get: {
            parameters: {
                query?: {
                    /** @description Start of the range (default: one hour before to) */
                    from?: string;
                    /** @description Seconds per point, a multiple of 60 (of 3600 for ranges older than the minute retention); default: the finest giving at most 360 points; at most 1440 points */
                    step?: number;
                    /** @description End of the range (default: now) */
                    to?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** Format: date-time */
                            from: string;
                            points: {
                                /** Format: date-time */
                                at: string;
                                /** @description Per datapath mode: the sum of its routers rates */
                                modes: {
                                    mode: "unknown" | "none" | "tcx" | "cls_bpf" | "nftables" | "iptables";
                                    offloadedFlows: {
                                        hardware: number;
                                        software: number;
                                    };
                                    programs: {
                                        program: "set_ip_id_zero" | "set_ip_ttl" | "set_tcp_syn_window" | "clear_tcp_syn_ts";
                                        rewrittenPerSecond: number;
                                        seenPerSecond: number;
                                    }[];
                                    routers: number;
                                }[];
                                offloadedFlows: {
                                    hardware: number;
                                    software: number;
                                } | null;
                                /** @description Routers that reported in this step */
                                routers: number;
                            }[];
                            resolution: "minute" | "hour";
                            /** @description Seconds per point */
                            step: number;
                            /** Format: date-time */
                            to: string;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tokens": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List API tokens (never their secrets) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            items: {
                                /** Format: date-time */
                                createdAt: string;
                                createdBy: string;
                                /** Format: date-time */
                                expiresAt: string | null;
                                id: string;
                                /** Format: date-time */
                                lastUsedAt: string | null;
                                name: string;
                                owner: string;
                                /** @description First characters of the secret, to tell tokens apart */
                                prefix: string;
                                /** Format: date-time */
                                revokedAt: string | null;
                                scopes: string[];
                                state: "active" | "expired" | "revoked";
                            }[];
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        put?: never;
        /** Create an API token; the secret is returned once */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        expiresInSeconds?: number;
                        name: string;
                        /** @description Who the audit history names; default: the caller */
                        owner?: string;
                        scopes: ("read" | "write" | "admin" | "enroll")[];
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** Format: date-time */
                            createdAt: string;
                            createdBy: string;
                            /** Format: date-time */
                            expiresAt: string | null;
                            id: string;
                            /** Format: date-time */
                            lastUsedAt: string | null;
                            name: string;
                            owner: string;
                            /** @description First characters of the secret, to tell tokens apart */
                            prefix: string;
                            /** Format: date-time */
                            revokedAt: string | null;
                            scopes: string[];
                            state: "active" | "expired" | "revoked";
                        } & {
                            /** @description The secret: shown only here */
                            token: string;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tokens/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke an API token (takes effect on its next request)
         * @description Idempotent: revoking a token that is already revoked answers 204 again and changes and audits nothing, so a retried revocation never fails. 404 only for an id that names no token.
         */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The token is revoked (now, or already before) */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
                /** @description No API token has this id */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            details?: {
                                in?: string;
                                message?: string;
                                path?: string;
                            }[];
                            error: string;
                            message: string;
                            requestId?: string;
                        };
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** RouterSummary */
        "def-0": {
            agentVersion: string | null;
            appliedRevision: {
                profile: string;
                revision: number;
            } | null;
            arch: string | null;
            /** Format: date-time */
            connectedAt: string | null;
            /** Format: date-time */
            createdAt: string;
            /**
             * @description The datapath it runs, as its agent last reported it (null: never reported)
             * @enum {string|null}
             */
            datapath: "tcx" | "cls_bpf" | "nftables" | "iptables" | "none" | null;
            /** Format: date-time */
            decommissionedAt: string | null;
            /** @description The revision a rollout wants here; pending until it is the applied one */
            desiredRevision: {
                profile: string;
                revision: number;
            } | null;
            /** @description Whether the last drift report found differences */
            drifted: boolean | null;
            ebpf: {
                /** @description Predicted from the facts (null: not said) */
                predicted: boolean | null;
                /** @description Found by the on-router probe (null: not probed) */
                probed: boolean | null;
            };
            endian: string | null;
            hardwareOffload: {
                /** @description Predicted from the facts (null: not said) */
                predicted: boolean | null;
                /** @description Found by the on-router probe (null: not probed) */
                probed: boolean | null;
            };
            id: string;
            identity: string;
            kernel: string | null;
            /**
             * ApplyStatus
             * @enum {string|null}
             */
            lastApplyStatus: "pending" | "applied" | "failed" | "rolled_back" | null;
            /** Format: date-time */
            lastSeenAt: string | null;
            model: string | null;
            name: string;
            /**
             * @description The flow offload it runs, as its agent last reported it (null: never reported)
             * @enum {string|null}
             */
            offload: "hardware" | "software" | "off" | "unsupported" | null;
            openwrt: {
                /** @description The OpenWrt release: "23.05.3", "SNAPSHOT" */
                release: string;
                target: string | null;
                /**
                 * @deprecated
                 * @description Old spelling of `release`; removed in 0.3
                 */
                version: string;
            } | null;
            placement: string;
            soc: string | null;
            softwareOffload: {
                /** @description Predicted from the facts (null: not said) */
                predicted: boolean | null;
                /** @description Found by the on-router probe (null: not probed) */
                probed: boolean | null;
            };
            /**
             * ConnectionStatus
             * @enum {string}
             */
            status: "online" | "offline" | "never_seen";
            tags: string[];
            tcx: {
                /** @description Predicted from the facts (null: not said) */
                predicted: boolean | null;
                /** @description Found by the on-router probe (null: not probed) */
                probed: boolean | null;
            };
            /** Format: date-time */
            updatedAt: string;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export type operations = Record<string, never>;
