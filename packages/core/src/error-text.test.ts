import { describe, expect, it } from 'vitest';
import {
  describeThrown,
  ErrorTextBytes,
  formatBytes,
  PanicStackBytes,
  safeString,
  thrownMessage,
  toStorableText,
  truncateText,
} from './error-text.js';
import { permanent } from './outcomes.js';

const utf8Bytes = (text: string): number => new TextEncoder().encode(text).length;

describe('toStorableText', () => {
  it('escapes \\u0000 as visible text and replaces unpaired surrogates, keeping paired ones', () => {
    expect(toStorableText('a\u0000b\u0000')).toBe('a\\u0000b\\u0000');
    expect(toStorableText('x\uD800y')).toBe('x\uFFFDy');
    expect(toStorableText('\uDC00 and \uD83D')).toBe('\uFFFD and \uFFFD');
    expect(toStorableText('ok \uD83D\uDE00')).toBe('ok \uD83D\uDE00');
    expect(toStorableText('plain')).toBe('plain');
  });
});

describe('truncateText', () => {
  it('returns text that fits unchanged', () => {
    expect(truncateText('short', 100)).toBe('short');
    const exact = 'x'.repeat(200);
    expect(truncateText(exact, 200)).toBe(exact);
  });

  it('cuts long text to the byte limit and says how much was cut', () => {
    const text = 'x'.repeat(10_000_000);
    const cut = truncateText(text, ErrorTextBytes);
    expect(utf8Bytes(cut)).toBeLessThanOrEqual(ErrorTextBytes);
    expect(cut.startsWith('xxxx')).toBe(true);
    expect(cut).toMatch(/\.\.\. \[truncated 10\.0 MB\]$/);
  });

  it('never cuts inside a character', () => {
    const text = '\uD83D\uDE00'.repeat(1_000);
    const cut = truncateText(text, 101);
    expect(utf8Bytes(cut)).toBeLessThanOrEqual(101);
    expect(cut).toMatch(/^(\uD83D\uDE00)+\.\.\. \[truncated /);
  });
});

describe('formatBytes', () => {
  it('uses bytes, KB and MB', () => {
    expect(formatBytes(12)).toBe('12 bytes');
    expect(formatBytes(9_900)).toBe('9.9 KB');
    expect(formatBytes(9_900_000)).toBe('9.9 MB');
  });
});

describe('safeString', () => {
  it('shows every kind of value without throwing', () => {
    expect(safeString('s')).toBe('s');
    expect(safeString(10n)).toBe('10n');
    expect(safeString(Symbol('boom'))).toBe('Symbol(boom)');
    expect(safeString(undefined)).toBe('undefined');
    expect(safeString(null)).toBe('null');
    expect(safeString(Object.create(null))).toBe('{}');
    expect(safeString({ toString: () => 'custom' })).toBe('custom');
    expect(safeString(function named() {})).toBe('[function named]');
  });

  it('falls back when toString and JSON both throw', () => {
    const hostile = Object.create(null) as Record<string | symbol, unknown>;
    hostile.toJSON = () => {
      throw new Error('no JSON');
    };
    expect(safeString(hostile)).toBe('[object Object]');
    const proxy = new Proxy(
      {},
      {
        get() {
          throw new Error('trap');
        },
        getPrototypeOf() {
          throw new Error('trap');
        },
      },
    );
    expect(safeString(proxy)).toBe('[a value that cannot be shown as text]');
  });
});

describe('describeThrown', () => {
  it('keeps the name, code, message and stack of an ordinary error', () => {
    const error = Object.assign(new TypeError('bad thing'), { code: 'E_BAD' });
    const d = describeThrown(error);
    expect(d).toMatchObject({ name: 'TypeError', code: 'E_BAD', message: 'bad thing' });
    expect(d.stack).toContain('TypeError: bad thing');
  });

  it('makes a message with \\u0000 and lone surrogates storable, in the stack too', () => {
    const d = describeThrown(new Error('a\u0000b\uD800'));
    expect(d.message).toBe('a\\u0000b\uFFFD');
    expect(d.stack).toContain('a\\u0000b\uFFFD');
    expect(d.stack).not.toContain('\u0000');
  });

  it('describes a permanent() of such an error the same way', () => {
    const d = describeThrown(permanent(new Error('x\u0000y')));
    expect(d).toMatchObject({ name: 'PermanentError', code: 'PERMANENT', message: 'x\\u0000y' });
  });

  it('survives an error whose message getter throws', () => {
    const error = new Error('hidden');
    Object.defineProperty(error, 'message', {
      get() {
        throw new Error('getter');
      },
    });
    expect(describeThrown(error).message).toBe('[a Error whose message could not be read]');
    expect(thrownMessage(error)).toBe('[a Error whose message could not be read]');
  });

  it('survives a thrown null-prototype object, BigInt, symbol and undefined', () => {
    expect(describeThrown(Object.create(null))).toMatchObject({
      name: 'object',
      message: '{}',
      stack: null,
    });
    expect(describeThrown(10n)).toMatchObject({ name: 'bigint', message: '10n' });
    expect(describeThrown(Symbol('s'))).toMatchObject({ name: 'symbol', message: 'Symbol(s)' });
    expect(describeThrown(undefined)).toMatchObject({ name: 'undefined', message: 'undefined' });
  });

  it('survives a proxy whose every trap throws', () => {
    const proxy = new Proxy(new Error('x'), {
      get() {
        throw new Error('trap');
      },
      getPrototypeOf() {
        throw new Error('trap');
      },
    });
    const d = describeThrown(proxy);
    expect(typeof d.message).toBe('string');
    expect(d.stack).toBeNull();
  });

  it('caps the message and the stack', () => {
    const huge = new Error('m'.repeat(10_000_000));
    const d = describeThrown(huge);
    expect(utf8Bytes(d.message)).toBeLessThanOrEqual(ErrorTextBytes);
    expect(d.message).toMatch(/\[truncated 10\.0 MB\]$/);
    expect(utf8Bytes(d.stack!)).toBeLessThanOrEqual(PanicStackBytes);
    expect(d.stack).toMatch(/\[truncated /);
  });
});

describe('permanent', () => {
  it('wraps values that cannot be converted by String()', () => {
    expect(permanent(Object.create(null)).message).toBe('{}');
    const error = new Error('hidden');
    Object.defineProperty(error, 'message', {
      get() {
        throw new Error('getter');
      },
    });
    expect(permanent(error).message).toMatch(/could not be read/);
  });
});
