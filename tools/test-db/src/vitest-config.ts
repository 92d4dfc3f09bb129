import { defineConfig } from 'vitest/config';
export function cycloneVitestConfig(_url: string) {
  return defineConfig({ test: {} });
}
