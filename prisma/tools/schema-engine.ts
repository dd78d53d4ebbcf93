// Prisma's schema engine compiled to WebAssembly. The Prisma CLI would download a native engine
// at first use, which cannot happen offline; this one ships inside an npm package.
//
// The package's entry point does `import * as wasm from "./schema_engine_bg.wasm"`, which needs
// node --experimental-wasm-modules in every process (server, CLI, each vitest worker). Loading
// the .wasm here and handing it to the wasm-bindgen glue ourselves works with or without that
// flag, so nothing depends on how the process was started.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils';
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import * as glue from '@prisma/schema-engine-wasm/schema_engine_bg';
import type { SchemaEngine } from '@prisma/schema-engine-wasm/schema_engine_bg';

export type { SchemaEngine };

interface BindgenExports {
  __wbindgen_start(): void;
}

let loading: Promise<void> | undefined;

function loadWasm(): Promise<void> {
  loading ??= (async () => {
    const require = createRequire(import.meta.url);
    const gluePath = require.resolve('@prisma/schema-engine-wasm/schema_engine_bg');
    const wasmPath = gluePath.replace(/schema_engine_bg\.js$/, 'schema_engine_bg.wasm');
    const module = await WebAssembly.compile(await readFile(wasmPath));
    // The glue module is the wasm's only import namespace, under the name its bundler gave it.
    const instance = await WebAssembly.instantiate(module, {
      './schema_engine_bg.js': glue as unknown as WebAssembly.ModuleImports,
    });
    glue.__wbg_set_wasm(instance.exports);
    (instance.exports as unknown as BindgenExports).__wbindgen_start();
  })();
  loading.catch(() => {
    loading = undefined;
  });
  return loading;
}

export interface SchemaFile {
  path: string;
  content: string;
}

export type EngineLog = (line: string) => void;

/**
 * An engine bound to a database reached through a Prisma driver adapter. Free it with
 * `engine.free()` when done; the adapter's connections are the caller's to close.
 */
export async function startSchemaEngine(
  adapter: SqlMigrationAwareDriverAdapterFactory,
  schema: SchemaFile,
  log: EngineLog = () => {},
): Promise<SchemaEngine> {
  await loadWasm();
  return glue.SchemaEngine.new(
    { datamodels: [[schema.path, schema.content]] },
    log,
    bindMigrationAwareSqlAdapterFactory(adapter),
  );
}

export const noFilters = { externalTables: [], externalEnums: [] };
