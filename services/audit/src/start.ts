import { runDatabaseService } from '@restgate/shared/resource';
import { createAudit } from './app';
import { configSchema, type AuditConfig } from './config';

void runDatabaseService<AuditConfig>({ name: 'audit', schema: configSchema, create: createAudit });
