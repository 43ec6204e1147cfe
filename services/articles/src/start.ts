import { runDatabaseService } from '@restgate/shared/resource';
import { createArticles } from './app';
import { configSchema, type ArticlesConfig } from './config';

void runDatabaseService<ArticlesConfig>({ name: 'articles', schema: configSchema, create: createArticles });
