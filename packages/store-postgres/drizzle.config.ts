import { defineConfig } from 'drizzle-kit';

// Run through `npm run db:generate`: drizzle-kit loads this schema through CommonJS, so the
// script sets NODE_OPTIONS=--conditions=@cyclone/source to resolve @cyclone/core from source.
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/schema/index.ts',
  out: '../../migrations',
  strict: true,
});
