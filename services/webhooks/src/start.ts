import { runDatabaseService } from '@restgate/shared/resource';
import { createWebhooks } from './app';
import { configSchema, type WebhooksConfig } from './config';

void runDatabaseService<WebhooksConfig>({ name: 'webhooks', schema: configSchema, create: createWebhooks });
