#!/usr/bin/env node
// Runs the TypeScript CLI through tsx, so `npx wrtfleet` works straight from the repository.
import { register } from 'tsx/esm/api';

register();
await import('./main.ts');
