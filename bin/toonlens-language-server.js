#!/usr/bin/env node
'use strict';
// The language server for editors other than VS Code: `toonlens-language-server --stdio`.
require('../dist/server.js');
