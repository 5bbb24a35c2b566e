// Generated from openapi.json by scripts/sdk-sources.ts (`npm run openapi`): do not edit.

/** A request body field's type and bounds, as the service checks them. */
export interface FieldRule {
  type?: string;
  required?: true;
  nullable?: true;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  format?: string;
  pattern?: string;
  enum?: readonly unknown[];
}

/** The fields of every JSON request body, by `METHOD /path` (a list's items as `name[].field`): forms check them first. */
export const REQUEST_FIELDS: Readonly<Record<string, Readonly<Record<string, FieldRule>>>> = {
  "PATCH /v1/me": {
    "display_name": {
      "type": "string",
      "nullable": true,
      "minLength": 1,
      "maxLength": 100
    },
    "locale": {
      "type": "string",
      "nullable": true,
      "maxLength": 35,
      "pattern": "^[a-z]{2,3}(-[A-Za-z0-9]{2,8}){0,4}$"
    },
    "timezone": {
      "type": "string",
      "nullable": true,
      "maxLength": 64
    },
    "marketing_opt_in": {
      "type": "boolean"
    }
  },
  "POST /v1/admin/roles": {
    "key": {
      "type": "string",
      "required": true,
      "pattern": "^[a-z][a-z0-9_.-]{0,47}$"
    },
    "name": {
      "type": "string",
      "required": true,
      "minLength": 1,
      "maxLength": 100
    },
    "description": {
      "type": "string",
      "maxLength": 500
    },
    "permissions": {
      "type": "array",
      "maxItems": 200
    }
  },
  "PATCH /v1/admin/roles/{id}": {
    "name": {
      "type": "string",
      "minLength": 1,
      "maxLength": 100
    },
    "description": {
      "type": "string",
      "nullable": true,
      "maxLength": 500
    }
  },
  "PUT /v1/admin/roles/{id}/permissions": {
    "keys": {
      "type": "array",
      "required": true,
      "maxItems": 200
    }
  },
  "POST /v1/admin/users/bulk/roles": {
    "user_ids": {
      "type": "array",
      "required": true,
      "minItems": 1,
      "maxItems": 500
    },
    "role_key": {
      "type": "string",
      "required": true,
      "minLength": 1,
      "maxLength": 48
    },
    "action": {
      "type": "string",
      "required": true,
      "enum": [
        "grant",
        "revoke"
      ]
    },
    "expires_at": {
      "type": "string",
      "format": "date-time",
      "pattern": "^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))T([01]\\d|2[0-3]):[0-5]\\d(:[0-5]\\d(\\.\\d+)?)?(Z|[+-]\\d{2}:?\\d{2})$"
    },
    "reason": {
      "type": "string",
      "maxLength": 300
    }
  },
  "PUT /v1/admin/roles/{id}/alerts": {
    "alerts": {
      "type": "array",
      "required": true,
      "maxItems": 2
    }
  },
  "DELETE /v1/admin/users/{id}": {
    "reason": {
      "type": "string",
      "required": true,
      "minLength": 3,
      "maxLength": 500
    },
    "hard": {
      "type": "boolean"
    }
  },
  "PATCH /v1/admin/users/{id}": {
    "display_name": {
      "type": "string",
      "nullable": true,
      "minLength": 1,
      "maxLength": 100
    },
    "tier": {
      "type": "string",
      "nullable": true,
      "minLength": 1,
      "maxLength": 32
    },
    "metadata": {
      "type": "object"
    },
    "reason": {
      "type": "string",
      "maxLength": 500
    }
  },
  "POST /v1/admin/users/{id}/ban": {
    "reason": {
      "type": "string",
      "required": true,
      "minLength": 3,
      "maxLength": 500
    }
  },
  "POST /v1/admin/users/{id}/unban": {
    "reason": {
      "type": "string",
      "minLength": 3,
      "maxLength": 500
    }
  },
  "POST /v1/admin/users/{id}/sign-out": {
    "session_id": {
      "type": "string",
      "minLength": 1,
      "maxLength": 200
    },
    "reason": {
      "type": "string",
      "minLength": 3,
      "maxLength": 500
    }
  },
  "POST /v1/admin/ops/panic": {
    "level": {
      "type": "string",
      "required": true,
      "enum": [
        "off",
        "degraded",
        "lockdown"
      ]
    },
    "reason": {
      "type": "string",
      "required": true,
      "minLength": 3,
      "maxLength": 500
    }
  },
  "POST /v1/admin/catalog/achievements": {
    "key": {
      "type": "string",
      "required": true,
      "pattern": "^[a-z][a-z0-9_.-]{0,63}$"
    },
    "name": {
      "type": "string",
      "required": true,
      "minLength": 1,
      "maxLength": 100
    },
    "description": {
      "type": "string",
      "nullable": true,
      "maxLength": 500
    },
    "icon_path": {
      "type": "string",
      "nullable": true,
      "maxLength": 500
    },
    "reward_credits": {
      "type": "integer",
      "minimum": 0,
      "maximum": 1000000
    },
    "is_active": {
      "type": "boolean"
    },
    "sort_order": {
      "type": "integer",
      "minimum": -10000,
      "maximum": 10000
    }
  },
  "PATCH /v1/admin/catalog/achievements/{id}": {
    "key": {},
    "name": {
      "type": "string",
      "minLength": 1,
      "maxLength": 100
    },
    "description": {
      "type": "string",
      "nullable": true,
      "maxLength": 500
    },
    "icon_path": {
      "type": "string",
      "nullable": true,
      "maxLength": 500
    },
    "reward_credits": {
      "type": "integer",
      "minimum": 0,
      "maximum": 1000000
    },
    "is_active": {
      "type": "boolean"
    },
    "sort_order": {
      "type": "integer",
      "minimum": -10000,
      "maximum": 10000
    }
  },
  "PUT /v1/admin/catalog/referral-rules": {
    "referrer_reward_credits": {
      "type": "integer",
      "required": true,
      "minimum": 0,
      "maximum": 1000000
    },
    "referee_reward_credits": {
      "type": "integer",
      "required": true,
      "minimum": 0,
      "maximum": 1000000
    },
    "qualifying_event": {
      "type": "string",
      "required": true,
      "enum": [
        "signup",
        "first_purchase"
      ]
    },
    "qualify_within_days": {
      "type": "integer",
      "nullable": true,
      "minimum": 1,
      "maximum": 365
    },
    "max_rewards_per_referrer": {
      "type": "integer",
      "nullable": true,
      "minimum": 1,
      "maximum": 1000000
    },
    "is_active": {
      "type": "boolean",
      "required": true
    },
    "expected_version": {
      "type": "integer",
      "minimum": 0
    }
  },
  "PUT /v1/admin/plans/rulesets": {
    "key": {
      "type": "string",
      "required": true,
      "pattern": "^[a-z][a-z0-9_-]{0,47}$"
    },
    "name": {
      "type": "string",
      "required": true,
      "minLength": 1,
      "maxLength": 100
    },
    "description": {
      "type": "string",
      "maxLength": 500
    },
    "limits": {
      "type": "object"
    },
    "isActive": {
      "type": "boolean"
    }
  },
  "PUT /v1/admin/plans/tiers": {
    "key": {
      "type": "string",
      "required": true,
      "pattern": "^[a-z][a-z0-9_-]{0,31}$"
    },
    "name": {
      "type": "string",
      "required": true,
      "minLength": 1,
      "maxLength": 100
    },
    "rank": {
      "type": "integer",
      "required": true,
      "minimum": 0,
      "maximum": 2147483647
    },
    "rulesetKey": {
      "type": "string",
      "required": true,
      "minLength": 1,
      "maxLength": 48
    },
    "description": {
      "type": "string",
      "maxLength": 500
    }
  },
  "PATCH /v1/admin/plans/products/{id}": {
    "kind": {},
    "name": {
      "type": "string",
      "minLength": 1,
      "maxLength": 100
    },
    "description": {
      "type": "string",
      "nullable": true,
      "maxLength": 500
    },
    "credits": {
      "type": "integer",
      "minimum": 1,
      "maximum": 10000000
    },
    "tierKey": {
      "type": "string",
      "minLength": 1,
      "maxLength": 32
    },
    "isActive": {
      "type": "boolean"
    },
    "sortOrder": {
      "type": "integer",
      "minimum": -10000,
      "maximum": 10000
    },
    "metadata": {
      "type": "object"
    }
  },
  "POST /v1/admin/plans/products/{id}/prices": {
    "providerPriceId": {
      "type": "string",
      "pattern": "^[A-Za-z0-9_-]{1,255}$"
    },
    "currency": {
      "type": "string",
      "required": true,
      "pattern": "^[A-Za-z]{3}$"
    },
    "unitAmount": {
      "type": "integer",
      "required": true,
      "minimum": 0,
      "maximum": 999999999999
    },
    "interval": {
      "type": "string",
      "nullable": true,
      "enum": [
        "month",
        "year"
      ]
    },
    "isActive": {
      "type": "boolean"
    }
  },
  "PATCH /v1/admin/plans/prices/{id}": {
    "isActive": {
      "type": "boolean",
      "required": true
    },
    "providerPriceId": {},
    "currency": {},
    "unitAmount": {},
    "interval": {}
  },
  "PUT /v1/admin/site/settings/{section}": {
    "draft": {
      "type": "object",
      "required": true
    }
  },
  "POST /v1/admin/site/settings/{section}/publish": {
    "note": {
      "type": "string",
      "maxLength": 500
    }
  },
  "POST /v1/admin/site/settings/{section}/rollback": {
    "version": {
      "type": "integer",
      "required": true,
      "minimum": 1
    },
    "note": {
      "type": "string",
      "maxLength": 500
    }
  },
  "POST /v1/admin/store/games": {
    "slug": {
      "type": "string",
      "required": true,
      "pattern": "^[a-z0-9][a-z0-9-]{0,127}$"
    },
    "title": {
      "type": "string",
      "required": true,
      "minLength": 1,
      "maxLength": 200
    },
    "summary": {
      "type": "string",
      "nullable": true,
      "maxLength": 2000
    },
    "description": {
      "type": "string",
      "nullable": true,
      "maxLength": 20000
    },
    "game_type": {
      "type": "string",
      "enum": [
        "app",
        "game",
        "launcher"
      ]
    },
    "status": {
      "type": "string",
      "enum": [
        "draft",
        "published",
        "hidden"
      ]
    },
    "release_date": {
      "type": "string",
      "nullable": true,
      "format": "date",
      "pattern": "^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))$"
    },
    "controller_support": {
      "type": "string",
      "enum": [
        "none",
        "partial",
        "full"
      ]
    },
    "website": {
      "type": "string",
      "nullable": true,
      "maxLength": 500,
      "format": "uri"
    },
    "required_age": {
      "type": "integer",
      "minimum": 0,
      "maximum": 21
    },
    "legal_notice": {
      "type": "string",
      "nullable": true,
      "maxLength": 5000
    },
    "license_required": {
      "type": "boolean"
    },
    "content_description": {
      "type": "string",
      "nullable": true,
      "maxLength": 5000
    },
    "metadata": {
      "type": "object"
    },
    "genre_ids": {
      "type": "array",
      "maxItems": 50
    },
    "developer_ids": {
      "type": "array",
      "maxItems": 50
    },
    "publisher_ids": {
      "type": "array",
      "maxItems": 50
    }
  },
  "PATCH /v1/admin/store/games/{id}": {
    "slug": {
      "type": "string",
      "pattern": "^[a-z0-9][a-z0-9-]{0,127}$"
    },
    "title": {
      "type": "string",
      "minLength": 1,
      "maxLength": 200
    },
    "summary": {
      "type": "string",
      "nullable": true,
      "maxLength": 2000
    },
    "description": {
      "type": "string",
      "nullable": true,
      "maxLength": 20000
    },
    "game_type": {
      "type": "string",
      "enum": [
        "app",
        "game",
        "launcher"
      ]
    },
    "status": {
      "type": "string",
      "enum": [
        "draft",
        "published",
        "hidden"
      ]
    },
    "release_date": {
      "type": "string",
      "nullable": true,
      "format": "date",
      "pattern": "^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))$"
    },
    "controller_support": {
      "type": "string",
      "enum": [
        "none",
        "partial",
        "full"
      ]
    },
    "website": {
      "type": "string",
      "nullable": true,
      "maxLength": 500,
      "format": "uri"
    },
    "required_age": {
      "type": "integer",
      "minimum": 0,
      "maximum": 21
    },
    "legal_notice": {
      "type": "string",
      "nullable": true,
      "maxLength": 5000
    },
    "license_required": {
      "type": "boolean"
    },
    "content_description": {
      "type": "string",
      "nullable": true,
      "maxLength": 5000
    },
    "metadata": {
      "type": "object"
    },
    "genre_ids": {
      "type": "array",
      "maxItems": 50
    },
    "developer_ids": {
      "type": "array",
      "maxItems": 50
    },
    "publisher_ids": {
      "type": "array",
      "maxItems": 50
    }
  },
  "POST /v1/admin/store/genres": {
    "name": {
      "type": "string",
      "required": true,
      "minLength": 1,
      "maxLength": 100
    },
    "slug": {
      "type": "string",
      "maxLength": 64
    }
  },
  "PATCH /v1/admin/store/genres/{id}": {
    "name": {
      "type": "string",
      "minLength": 1,
      "maxLength": 100
    },
    "slug": {
      "type": "string",
      "maxLength": 64
    }
  },
  "POST /v1/admin/store/developers": {
    "name": {
      "type": "string",
      "required": true,
      "minLength": 1,
      "maxLength": 100
    },
    "slug": {
      "type": "string",
      "maxLength": 64
    }
  },
  "PATCH /v1/admin/store/developers/{id}": {
    "name": {
      "type": "string",
      "minLength": 1,
      "maxLength": 100
    },
    "slug": {
      "type": "string",
      "maxLength": 64
    }
  },
  "POST /v1/admin/store/publishers": {
    "name": {
      "type": "string",
      "required": true,
      "minLength": 1,
      "maxLength": 100
    },
    "slug": {
      "type": "string",
      "maxLength": 64
    }
  },
  "PATCH /v1/admin/store/publishers/{id}": {
    "name": {
      "type": "string",
      "minLength": 1,
      "maxLength": 100
    },
    "slug": {
      "type": "string",
      "maxLength": 64
    }
  },
  "PUT /v1/admin/site/content-blocks": {
    "surface": {
      "type": "string",
      "required": true,
      "enum": [
        "landing",
        "portal"
      ]
    },
    "slot": {
      "type": "string",
      "required": true,
      "pattern": "^[a-z][a-z0-9_.-]{0,63}$"
    },
    "locale": {
      "type": "string",
      "minLength": 1,
      "maxLength": 16
    },
    "draft": {
      "type": "object",
      "required": true
    },
    "sortOrder": {
      "type": "integer",
      "minimum": -1000000,
      "maximum": 1000000
    }
  },
  "POST /v1/admin/site/content-blocks/{id}/status": {
    "status": {
      "type": "string",
      "required": true,
      "enum": [
        "draft",
        "published",
        "archived"
      ]
    }
  },
  "POST /v1/admin/site/pages": {
    "slug": {
      "type": "string",
      "required": true,
      "pattern": "^[a-z0-9][a-z0-9-]{0,127}$"
    },
    "title": {
      "type": "string",
      "required": true,
      "minLength": 1,
      "maxLength": 200
    }
  },
  "PATCH /v1/admin/site/pages/{id}": {
    "slug": {
      "type": "string",
      "pattern": "^[a-z0-9][a-z0-9-]{0,127}$"
    },
    "title": {
      "type": "string",
      "minLength": 1,
      "maxLength": 200
    }
  },
  "POST /v1/admin/site/pages/{id}/versions": {
    "markdown": {
      "type": "string",
      "required": true,
      "minLength": 1,
      "maxLength": 200000
    },
    "note": {
      "type": "string",
      "maxLength": 500
    }
  },
  "POST /v1/admin/site/pages/{id}/publish": {
    "version": {
      "type": "integer",
      "required": true,
      "minimum": 1,
      "maximum": 2147483647
    }
  },
  "PUT /v1/admin/site/announcements": {
    "id": {
      "type": "string",
      "format": "uuid",
      "pattern": "^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$"
    },
    "title": {
      "type": "string",
      "required": true,
      "minLength": 1,
      "maxLength": 200
    },
    "body": {
      "type": "string",
      "maxLength": 4000
    },
    "severity": {
      "type": "string",
      "enum": [
        "info",
        "success",
        "warning",
        "critical"
      ]
    },
    "surface": {
      "type": "string",
      "enum": [
        "landing",
        "portal",
        "all"
      ]
    },
    "action_url": {
      "type": "string",
      "nullable": true,
      "maxLength": 2000,
      "format": "uri"
    },
    "starts_at": {
      "type": "string",
      "nullable": true,
      "format": "date-time",
      "pattern": "^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))T([01]\\d|2[0-3]):[0-5]\\d(:[0-5]\\d(\\.\\d+)?)?(Z|[+-]\\d{2}:?\\d{2})$"
    },
    "ends_at": {
      "type": "string",
      "nullable": true,
      "format": "date-time",
      "pattern": "^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))T([01]\\d|2[0-3]):[0-5]\\d(:[0-5]\\d(\\.\\d+)?)?(Z|[+-]\\d{2}:?\\d{2})$"
    },
    "is_active": {
      "type": "boolean"
    }
  },
  "PATCH /v1/admin/system/cron/{id}": {
    "active": {
      "type": "boolean",
      "required": true
    }
  },
  "POST /v1/me/sessions": {
    "game_id": {
      "type": "integer",
      "required": true,
      "maximum": 2147483647
    }
  },
  "POST /v1/admin/runtime/sessions/{id}/stop": {
    "reason": {
      "type": "string",
      "maxLength": 500
    }
  },
  "POST /v1/admin/runtime/nodes/{id}/pull-image": {
    "image": {
      "type": "string",
      "required": true,
      "minLength": 1,
      "maxLength": 500
    }
  },
  "POST /v1/admin/runtime/nodes/{id}/drain": {
    "reason": {
      "type": "string",
      "maxLength": 500
    }
  },
  "POST /v1/admin/runtime/nodes/{id}/undrain": {
    "reason": {
      "type": "string",
      "maxLength": 500
    }
  },
  "PUT /v1/admin/runtime/nodes/{id}/pool": {
    "pool_id": {
      "type": "string",
      "required": true,
      "nullable": true,
      "minLength": 1,
      "maxLength": 200
    },
    "reason": {
      "type": "string",
      "maxLength": 500
    }
  },
  "POST /v1/admin/runtime/pools": {
    "id": {
      "type": "string",
      "required": true,
      "pattern": "^[a-z0-9][a-z0-9-]{0,62}$"
    },
    "name": {
      "type": "string",
      "required": true,
      "minLength": 1,
      "maxLength": 100
    },
    "description": {
      "type": "string",
      "nullable": true,
      "maxLength": 500
    }
  },
  "PATCH /v1/admin/runtime/pools/{id}": {
    "name": {
      "type": "string",
      "minLength": 1,
      "maxLength": 100
    },
    "description": {
      "type": "string",
      "nullable": true,
      "maxLength": 500
    }
  },
  "POST /v1/admin/billing/credits/grant": {
    "user_id": {
      "type": "string",
      "required": true,
      "format": "uuid",
      "pattern": "^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$"
    },
    "amount": {
      "type": "integer",
      "required": true,
      "minimum": 1,
      "maximum": 1000000
    },
    "reason": {
      "type": "string",
      "required": true,
      "minLength": 3,
      "maxLength": 500
    },
    "expires_at": {
      "type": "string",
      "format": "date-time",
      "pattern": "^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))T([01]\\d|2[0-3]):[0-5]\\d(:[0-5]\\d(\\.\\d+)?)?(Z|[+-]\\d{2}:?\\d{2})$"
    }
  },
  "POST /v1/admin/billing/credits/gift-pack": {
    "user_id": {
      "type": "string",
      "required": true,
      "format": "uuid",
      "pattern": "^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$"
    },
    "product_id": {
      "type": "string",
      "required": true,
      "format": "uuid",
      "pattern": "^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$"
    },
    "quantity": {
      "type": "integer",
      "minimum": 1,
      "maximum": 99
    },
    "reason": {
      "type": "string",
      "required": true,
      "minLength": 3,
      "maxLength": 500
    },
    "expires_at": {
      "type": "string",
      "format": "date-time",
      "pattern": "^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))T([01]\\d|2[0-3]):[0-5]\\d(:[0-5]\\d(\\.\\d+)?)?(Z|[+-]\\d{2}:?\\d{2})$"
    }
  },
  "POST /v1/me/billing/checkout-session": {
    "productId": {
      "type": "string",
      "format": "uuid",
      "pattern": "^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$"
    },
    "priceId": {
      "type": "string",
      "minLength": 1
    },
    "successUrl": {
      "type": "string",
      "required": true,
      "format": "uri"
    },
    "cancelUrl": {
      "type": "string",
      "required": true,
      "format": "uri"
    },
    "quantity": {
      "type": "integer",
      "minimum": 1,
      "maximum": 99
    },
    "promotionCode": {
      "type": "string",
      "pattern": "^[A-Za-z0-9][A-Za-z0-9_-]{2,49}$"
    }
  },
  "POST /v1/me/billing/portal-session": {
    "return_url": {
      "type": "string",
      "required": true,
      "format": "uri"
    }
  },
  "POST /v1/admin/billing/coupons": {
    "name": {
      "type": "string",
      "required": true,
      "minLength": 1,
      "maxLength": 100
    },
    "percent_off": {
      "type": "number",
      "maximum": 100
    },
    "amount_off": {
      "type": "integer",
      "minimum": 1,
      "maximum": 999999999999
    },
    "currency": {
      "type": "string",
      "pattern": "^[A-Za-z]{3}$"
    },
    "duration": {
      "type": "string",
      "required": true,
      "enum": [
        "once",
        "repeating",
        "forever"
      ]
    },
    "duration_in_months": {
      "type": "integer",
      "minimum": 1,
      "maximum": 36
    },
    "max_redemptions": {
      "type": "integer",
      "minimum": 1,
      "maximum": 1000000000
    },
    "redeem_by": {
      "type": "string",
      "format": "date-time",
      "pattern": "^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))T([01]\\d|2[0-3]):[0-5]\\d(:[0-5]\\d(\\.\\d+)?)?(Z|[+-]\\d{2}:?\\d{2})$"
    }
  },
  "POST /v1/admin/billing/promotion-codes": {
    "code": {
      "type": "string",
      "required": true,
      "pattern": "^[A-Z0-9][A-Z0-9_-]{2,49}$"
    },
    "coupon_id": {
      "type": "string",
      "required": true,
      "format": "uuid",
      "pattern": "^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$"
    },
    "max_redemptions": {
      "type": "integer",
      "minimum": 1,
      "maximum": 1000000000
    },
    "expires_at": {
      "type": "string",
      "format": "date-time",
      "pattern": "^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))T([01]\\d|2[0-3]):[0-5]\\d(:[0-5]\\d(\\.\\d+)?)?(Z|[+-]\\d{2}:?\\d{2})$"
    },
    "first_time_only": {
      "type": "boolean"
    },
    "active": {
      "type": "boolean"
    }
  },
  "PATCH /v1/admin/billing/promotion-codes/{id}": {
    "active": {
      "type": "boolean",
      "required": true
    }
  },
  "POST /v1/admin/billing/payments/{id}/refund": {
    "amount": {
      "type": "integer",
      "minimum": 1,
      "maximum": 999999999999
    },
    "reason": {
      "type": "string",
      "required": true,
      "minLength": 3,
      "maxLength": 500
    }
  },
  "POST /v1/admin/billing/subscriptions/{id}/cancel": {
    "when": {
      "type": "string",
      "enum": [
        "period_end",
        "now"
      ]
    },
    "reason": {
      "type": "string",
      "required": true,
      "minLength": 3,
      "maxLength": 500
    }
  },
  "POST /v1/admin/billing/subscriptions/{id}/resume": {
    "reason": {
      "type": "string",
      "required": true,
      "minLength": 3,
      "maxLength": 500
    }
  },
  "POST /v1/admin/billing/subscriptions/{id}/simulate-renewal": {
    "outcome": {
      "type": "string",
      "required": true,
      "enum": [
        "paid",
        "failed"
      ]
    }
  },
  "POST /v1/admin/plans/subscribers/migrate": {
    "fromProductId": {
      "type": "string",
      "required": true,
      "format": "uuid",
      "pattern": "^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$"
    },
    "toProductId": {
      "type": "string",
      "required": true,
      "format": "uuid",
      "pattern": "^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$"
    },
    "newProviderPriceId": {
      "type": "string",
      "required": true,
      "minLength": 1
    },
    "confirm": {
      "type": "boolean",
      "required": true
    }
  },
  "POST /v1/admin/email/templates": {
    "key": {
      "type": "string",
      "required": true,
      "pattern": "^[a-z][a-z0-9-]{1,63}$"
    },
    "name": {
      "type": "string",
      "required": true,
      "minLength": 1,
      "maxLength": 200
    },
    "description": {
      "type": "string",
      "maxLength": 500
    },
    "category": {
      "type": "string",
      "enum": [
        "marketing",
        "transactional"
      ]
    },
    "version": {
      "type": "object"
    }
  },
  "PATCH /v1/admin/email/templates/{key}": {
    "name": {
      "type": "string",
      "minLength": 1,
      "maxLength": 200
    },
    "description": {
      "type": "string",
      "nullable": true,
      "maxLength": 500
    },
    "category": {
      "type": "string",
      "enum": [
        "marketing",
        "transactional"
      ]
    }
  },
  "POST /v1/admin/email/templates/{key}/versions": {
    "subject": {
      "type": "string",
      "required": true,
      "minLength": 1,
      "maxLength": 300,
      "pattern": "^[^\\r\\n]*$"
    },
    "html": {
      "type": "string",
      "required": true,
      "minLength": 1,
      "maxLength": 200000
    },
    "text": {
      "type": "string",
      "required": true,
      "minLength": 1,
      "maxLength": 100000
    },
    "note": {
      "type": "string",
      "maxLength": 500
    }
  },
  "POST /v1/admin/email/templates/{key}/publish": {
    "version": {
      "type": "integer",
      "required": true,
      "minimum": 1,
      "maximum": 2147483647
    }
  },
  "POST /v1/admin/email/templates/{key}/preview": {
    "version": {
      "type": "integer",
      "minimum": 1,
      "maximum": 2147483647
    },
    "vars": {
      "type": "object"
    }
  },
  "POST /v1/admin/email/audiences": {
    "name": {
      "type": "string",
      "required": true,
      "minLength": 1,
      "maxLength": 200
    },
    "description": {
      "type": "string",
      "nullable": true,
      "maxLength": 500
    }
  },
  "PUT /v1/admin/email/audiences/{id}": {
    "name": {
      "type": "string",
      "required": true,
      "minLength": 1,
      "maxLength": 200
    },
    "description": {
      "type": "string",
      "nullable": true,
      "maxLength": 500
    }
  },
  "PUT /v1/admin/email/audiences/{id}/members": {
    "members": {
      "type": "array",
      "maxItems": 50000
    },
    "csv": {
      "type": "string",
      "maxLength": 5000000
    }
  },
  "POST /v1/admin/email/campaigns": {
    "name": {
      "type": "string",
      "required": true,
      "minLength": 1,
      "maxLength": 200
    },
    "template_key": {
      "type": "string",
      "required": true,
      "pattern": "^[a-z][a-z0-9-]{1,63}$"
    },
    "audience_id": {
      "type": "string",
      "nullable": true,
      "format": "uuid",
      "pattern": "^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$"
    },
    "vars": {
      "type": "object"
    },
    "max_consecutive_failures": {
      "type": "integer",
      "minimum": 1,
      "maximum": 10000
    }
  },
  "PATCH /v1/admin/email/campaigns/{id}": {
    "name": {
      "type": "string",
      "minLength": 1,
      "maxLength": 200
    },
    "template_key": {
      "type": "string",
      "pattern": "^[a-z][a-z0-9-]{1,63}$"
    },
    "audience_id": {
      "type": "string",
      "nullable": true,
      "format": "uuid",
      "pattern": "^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$"
    },
    "vars": {
      "type": "object"
    },
    "max_consecutive_failures": {
      "type": "integer",
      "minimum": 1,
      "maximum": 10000
    }
  },
  "POST /v1/admin/email/campaigns/{id}/schedule": {
    "at": {
      "type": "string",
      "required": true,
      "format": "date-time",
      "pattern": "^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))T([01]\\d|2[0-3]):[0-5]\\d(:[0-5]\\d(\\.\\d+)?)?(Z|[+-]\\d{2}:?\\d{2})$"
    }
  },
  "POST /v1/admin/email/campaigns/{id}/cancel": {
    "reason": {
      "type": "string",
      "minLength": 3,
      "maxLength": 500
    }
  },
  "POST /v1/admin/email/suppressions": {
    "email": {
      "type": "string",
      "required": true,
      "maxLength": 320,
      "format": "email",
      "pattern": "^(?:[A-Za-z0-9_'+\\-]+\\.)*[A-Za-z0-9_'+\\-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9][A-Za-z0-9\\-]*\\.)+[A-Za-z]{2,}$"
    },
    "reason": {
      "type": "string",
      "enum": [
        "manual",
        "bounced",
        "complained"
      ]
    },
    "note": {
      "type": "string",
      "minLength": 1,
      "maxLength": 500
    }
  },
  "POST /v1/public/waitlist": {
    "email": {
      "type": "string",
      "required": true,
      "maxLength": 320,
      "format": "email",
      "pattern": "^(?:[A-Za-z0-9_'+\\-]+\\.)*[A-Za-z0-9_'+\\-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9][A-Za-z0-9\\-]*\\.)+[A-Za-z]{2,}$"
    },
    "source": {
      "type": "string",
      "minLength": 1,
      "maxLength": 100
    },
    "referrer": {
      "type": "string",
      "minLength": 1,
      "maxLength": 500
    }
  },
  "POST /v1/admin/notifications/broadcast": {
    "segment": {
      "type": "object"
    },
    "notification": {
      "type": "object"
    },
    "email": {
      "type": "object"
    }
  },
  "POST /v1/admin/notifications/broadcast/preview": {
    "segment": {
      "type": "object"
    }
  },
  "POST /v1/me/support/attachments/upload-url": {
    "content_type": {
      "type": "string",
      "required": true,
      "enum": [
        "image/png",
        "image/jpeg",
        "image/webp",
        "application/pdf",
        "text/plain"
      ]
    },
    "size": {
      "type": "integer",
      "required": true,
      "minimum": 1,
      "maximum": 10485760
    }
  },
  "POST /v1/me/support": {
    "subject": {
      "type": "string",
      "required": true,
      "minLength": 1,
      "maxLength": 200,
      "pattern": "^[^\\p{Cc}]*$"
    },
    "message": {
      "type": "string",
      "required": true,
      "minLength": 1,
      "maxLength": 10000
    },
    "category": {
      "type": "string",
      "required": true,
      "enum": [
        "account",
        "billing",
        "technical",
        "abuse",
        "other"
      ]
    },
    "attachment_keys": {
      "type": "array",
      "maxItems": 5
    }
  },
  "POST /v1/me/support/{id}/messages": {
    "message": {
      "type": "string",
      "required": true,
      "minLength": 1,
      "maxLength": 10000
    },
    "attachment_keys": {
      "type": "array",
      "maxItems": 5
    }
  },
  "POST /v1/admin/support/tickets/{id}/reply": {
    "message": {
      "type": "string",
      "required": true,
      "minLength": 1,
      "maxLength": 10000
    }
  },
  "POST /v1/admin/support/tickets/{id}/close": {
    "reason": {
      "type": "string",
      "minLength": 1,
      "maxLength": 500
    }
  },
  "POST /v1/admin/support/tickets/{id}/reopen": {
    "reason": {
      "type": "string",
      "minLength": 1,
      "maxLength": 500
    }
  },
  "POST /v1/me/delete": {
    "reason": {
      "type": "string",
      "minLength": 1,
      "maxLength": 500
    }
  },
  "POST /v1/me/delete/confirm": {
    "code": {
      "type": "string",
      "required": true,
      "pattern": "^\\d{8}$"
    }
  },
  "POST /v1/admin/users/{id}/restore": {
    "reason": {
      "type": "string",
      "required": true,
      "minLength": 3,
      "maxLength": 500
    }
  },
  "POST /v1/me/avatar/upload-url": {
    "content_type": {
      "type": "string",
      "required": true,
      "enum": [
        "image/png",
        "image/jpeg",
        "image/webp"
      ]
    },
    "size": {
      "type": "integer",
      "required": true,
      "minimum": 1,
      "maximum": 2097152
    }
  },
  "POST /v1/me/avatar/confirm": {
    "key": {
      "type": "string",
      "required": true,
      "minLength": 1,
      "maxLength": 400
    }
  },
  "POST /v1/me/device/approve": {
    "user_code": {
      "type": "string",
      "required": true,
      "minLength": 1,
      "maxLength": 32
    },
    "action": {
      "type": "string",
      "required": true,
      "enum": [
        "inspect",
        "approve",
        "deny"
      ]
    }
  },
  "PUT /v1/admin/ops/incident-rules": {
    "rules": {
      "type": "array",
      "required": true,
      "maxItems": 50
    },
    "rules[].key": {
      "type": "string",
      "required": true,
      "pattern": "^[a-z][a-z0-9_-]{0,47}$"
    },
    "rules[].signal": {
      "type": "string",
      "required": true,
      "enum": [
        "http_5xx",
        "database_errors",
        "database_latency",
        "runtime",
        "payments",
        "mail"
      ]
    },
    "rules[].threshold": {
      "type": "number",
      "required": true,
      "minimum": 0,
      "maximum": 600000
    },
    "rules[].window_seconds": {
      "type": "integer",
      "required": true,
      "minimum": 5,
      "maximum": 3600
    },
    "rules[].min_requests": {
      "type": "integer",
      "required": true,
      "minimum": 1,
      "maximum": 1000000
    },
    "rules[].level": {
      "type": "string",
      "required": true,
      "enum": [
        "degraded",
        "lockdown"
      ]
    },
    "rules[].auto_clear": {
      "type": "boolean",
      "required": true
    },
    "rules[].hold_seconds": {
      "type": "integer",
      "required": true,
      "minimum": 0,
      "maximum": 86400
    },
    "rules[].cooldown_seconds": {
      "type": "integer",
      "required": true,
      "minimum": 0,
      "maximum": 86400
    },
    "rules[].enabled": {
      "type": "boolean"
    }
  },
  "POST /v1/console/sign-in": {
    "code": {
      "type": "string",
      "required": true,
      "minLength": 1,
      "maxLength": 200
    }
  },
  "POST /v1/public/email/unsubscribe": {
    "List-Unsubscribe": {
      "type": "string"
    }
  },
  "POST /v1/public/device/code": {
    "client_id": {
      "type": "string",
      "required": true,
      "minLength": 1,
      "maxLength": 64
    },
    "scope": {
      "type": "string",
      "maxLength": 200,
      "pattern": "^[\\x21\\x23-\\x5B\\x5D-\\x7E]+( [\\x21\\x23-\\x5B\\x5D-\\x7E]+)*$"
    }
  },
  "POST /v1/public/device/token": {
    "grant_type": {
      "type": "string",
      "required": true,
      "minLength": 1,
      "maxLength": 200
    },
    "client_id": {
      "type": "string",
      "required": true,
      "minLength": 1,
      "maxLength": 64
    },
    "device_code": {
      "type": "string",
      "minLength": 1,
      "maxLength": 200
    },
    "refresh_token": {
      "type": "string",
      "minLength": 1,
      "maxLength": 200
    }
  }
};
