#!/usr/bin/env node
import { runFromShell } from '../dist/shell.js';

await runFromShell();
