import { migrate } from '@cyclone/store-postgres';

const connectionString = process.env.CYCLONE_DATABASE_URL ?? process.env.DATABASE_URL;
if (!connectionString) throw new Error('set CYCLONE_DATABASE_URL, e.g. postgres://localhost/app');

const { applied } = await migrate({ connectionString });
console.log(`applied ${applied} migration(s)`);
