// @ts-check
// The import rules of the repository, checked by dependency-cruiser (`npm run check:imports`,
// part of `npm test`; docs/architecture.md, "How the layering is checked"). Every rule is an
// error that names the import breaking it. Per-package layer rules go in `layers` below.
import { readdirSync, readFileSync } from 'node:fs';

/** Workspace folders whose packages the rules cover. */
const workspaces = ['packages', 'tools'];

/**
 * Layers of one package's `src`, top first: a folder may import its own layer and those below,
 * never one above (`.` is the files directly in `src`). Folders not named are free; the folder
 * rules still apply to them.
 *
 * @type {Record<string, readonly (readonly string[])[]>}
 */
const layers = {
  cli: [
    ['.'],
    ['commands'],
    ['dev', 'serving', 'worker', 'views'],
    ['database'],
    ['framework'],
    ['terminal'],
  ],
  server: [['.'], ['middleware', 'routes'], ['http', 'live', 'security']],
  // docs/architecture.md, "The store in layers": the facade, the operations, settlement, the
  // statements by table, the database plumbing, and the contract and schema at the bottom.
  'store-postgres': [
    ['.'],
    ['execution', 'operator', 'submission', 'schedules', 'maintenance', 'reads'],
    ['settlement'],
    ['tables'],
    ['db', 'migration'],
    ['contract', 'schema'],
  ],
};

/**
 * Folders of one package's `src` that share a layer but must not import each other: each uses
 * the layers below it, never a sibling (the store's operations).
 *
 * @type {Record<string, readonly string[]>}
 */
const independent = {
  'store-postgres': ['execution', 'operator', 'submission', 'schedules', 'maintenance', 'reads'],
};

/** A regular expression matching `text` literally. */
const literal = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Every file a package exports (each target of its `exports` map, under every condition), as
 * paths from the repository root: the only files of a package another package may import.
 */
function publicEntryPoints() {
  const entries = [];
  const collect = (dir, target) => {
    if (typeof target === 'string') entries.push(`${dir}/${target.replace(/^\.\//, '')}`);
    else if (target && typeof target === 'object') {
      for (const value of Object.values(target)) collect(dir, value);
    }
  };
  for (const parent of workspaces) {
    for (const name of readdirSync(parent)) {
      let manifest;
      try {
        manifest = JSON.parse(readFileSync(`${parent}/${name}/package.json`, 'utf8'));
      } catch {
        continue; // a folder without a package.json is no package
      }
      collect(`${parent}/${name}`, manifest.exports ?? manifest.main ?? 'index.js');
      for (const bin of Object.values(
        typeof manifest.bin === 'string' ? { bin: manifest.bin } : (manifest.bin ?? {}),
      )) {
        collect(`${parent}/${name}`, bin);
      }
    }
  }
  return entries;
}

const workspace = `(?:${workspaces.join('|')})`;

/**
 * `no-enclosing-folder-import`, one rule per depth (folders nested up to four deep): a file in a
 * sub-folder of `src` must not import a file that sits directly in a folder enclosing it.
 * dependency-cruiser's folder scope counts a folder's sub-folders as part of it, so
 * `no-folder-cycle` cannot see a cycle between a folder and its own sub-folder (`src` <->
 * `src/commands`); this rule closes that gap, and says how folders nest: a folder's own files sit
 * above its sub-folders.
 */
const enclosingFolderRules = [0, 1, 2, 3].map((depth) => ({
  name: 'no-enclosing-folder-import',
  severity: 'error',
  comment:
    "A folder's own files sit above its sub-folders: a file in a sub-folder may not import a " +
    'file directly in a folder that encloses it (that would be a cycle between the two folders ' +
    'as soon as the folder imports the sub-folder). Move the shared piece into a folder below.',
  from: {
    path: `^(${workspace}/[^/]+/src/${'[^/]+/'.repeat(depth)})[^/]+/.+`,
  },
  to: { path: '^$1[^/]+$' },
}));

/** One rule per package with layers: no folder imports a folder of a layer above its own. */
const layerRules = Object.entries(layers).flatMap(([pkg, order]) =>
  order.slice(1).map((layer, index) => {
    const folderPattern = (folder) => (folder === '.' ? `[^/]+$` : `${literal(folder)}/`);
    const above = order.slice(0, index + 1).flat();
    return {
      name: `layers-${pkg}`,
      severity: 'error',
      comment: `${pkg}: layers of src, top first: ${order.map((l) => l.join(' ')).join(' > ')}. A folder imports its own layer and those below only.`,
      from: {
        path: `^${workspace}/${literal(pkg)}/src/(?:${layer.map(folderPattern).join('|')})`,
      },
      to: {
        path: `^${workspace}/${literal(pkg)}/src/(?:${above.map(folderPattern).join('|')})`,
      },
    };
  }),
);

/** One rule per package with independent folders: none of them imports another. */
const independenceRules = Object.entries(independent).map(([pkg, folders]) => {
  const any = `^${workspace}/${literal(pkg)}/src/(${folders.map(literal).join('|')})/`;
  return {
    name: `independent-${pkg}`,
    severity: 'error',
    comment: `${pkg}: ${folders.join(', ')} use the layers below them and never each other.`,
    from: { path: any },
    to: { path: any, pathNot: `^${workspace}/${literal(pkg)}/src/$1/` },
  };
});

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'no-folder-cycle',
      severity: 'error',
      comment:
        "Folders of a package's src depend only downward: two folders that import each other, " +
        'directly or around a loop, form one tangle that cannot be read or changed apart.',
      scope: 'folder',
      from: { path: `^${workspace}/[^/]+/src/` },
      to: { circular: true },
    },
    ...enclosingFolderRules,
    {
      name: 'no-sibling-internals',
      severity: 'error',
      comment:
        "A package uses another package through its public entry points only (its package.json's " +
        '`exports`), never a file inside it: internals may move without notice.',
      from: { path: `^(${workspace}/[^/]+)/` },
      to: {
        path: `^${workspace}/[^/]+/`,
        pathNot: ['^$1/', ...publicEntryPoints().map((file) => `^${literal(file)}$`)],
      },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment:
        'An import that cannot be resolved: a missing file, or a path into a package that its ' +
        '`exports` do not offer.',
      from: {},
      to: { couldNotResolve: true },
    },
    ...layerRules,
    ...independenceRules,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(?:^|/)(?:node_modules|dist|coverage)/' },
    // Type-only imports tie folders together as much as any other.
    tsPreCompilationDeps: true,
    // Resolve as the tests and the type-checker do: sibling packages to their sources.
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['@cyclone/source', 'types', 'import', 'node', 'require', 'default'],
      extensions: ['.ts', '.tsx', '.mts', '.cts', '.js', '.mjs', '.cjs', '.json', '.node'],
      mainFields: ['types', 'module', 'main'],
    },
    metrics: true, // the folder graph that `no-folder-cycle` reads
  },
};
