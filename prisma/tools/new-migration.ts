// npm run db:migration:new -- <name>
import path from 'node:path';
import { createMigration } from './migrations.js';

async function main(): Promise<number> {
  const name = process.argv.slice(2).join('_');
  if (!name) {
    console.error('usage: npm run db:migration:new -- <name>');
    return 64;
  }
  const created = await createMigration(name);
  if (!created.name || !created.dir) {
    console.log('No changes: the migrations already produce prisma/schema.prisma.');
    return 0;
  }
  console.log(`Created ${path.relative(process.cwd(), path.join(created.dir, 'migration.sql'))}`);
  console.log('Review the SQL, then run `npm run db:generate` if the client is stale.');
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  },
);
