/**
 * The input-side JSON Schemas (`z.toJSONSchema(schema, { io: 'input' })` without `$schema`) of the
 * input schemas that never change: the built-in tools' (Bash under its default timeout limits) and
 * the Agent tool's. precomputedJsonSchema.ts says why they are written out;
 * test/tools/precomputedJsonSchema.test.ts fails, printing the fresh conversion, when one of them
 * differs from its schema's conversion. Not edited by hand: paste what that test prints.
 */

export const READ_INPUT_JSON_SCHEMA: Readonly<Record<string, unknown>> = {
  "type": "object",
  "properties": {
    "file_path": {
      "type": "string",
      "description": "Path of the file to read (absolute, or relative to the working directory)."
    },
    "offset": {
      "description": "Line number to start from (1-based). Use for large files.",
      "type": "integer",
      "minimum": 0,
      "maximum": 9007199254740991
    },
    "limit": {
      "description": "How many lines to read (default 2000).",
      "type": "integer",
      "exclusiveMinimum": 0,
      "maximum": 9007199254740991
    }
  },
  "required": [
    "file_path"
  ],
  "additionalProperties": false
};

export const WRITE_INPUT_JSON_SCHEMA: Readonly<Record<string, unknown>> = {
  "type": "object",
  "properties": {
    "file_path": {
      "type": "string",
      "description": "Path of the file to write (absolute, or relative to the working directory)."
    },
    "content": {
      "type": "string",
      "description": "The complete new content of the file."
    }
  },
  "required": [
    "file_path",
    "content"
  ],
  "additionalProperties": false
};

export const EDIT_INPUT_JSON_SCHEMA: Readonly<Record<string, unknown>> = {
  "type": "object",
  "properties": {
    "file_path": {
      "type": "string",
      "description": "Path of the file to edit (absolute, or relative to the working directory)."
    },
    "old_string": {
      "type": "string",
      "description": "The exact text to replace; it must occur exactly once unless replace_all is true."
    },
    "new_string": {
      "type": "string",
      "description": "The replacement text; must differ from old_string."
    },
    "replace_all": {
      "description": "Replace every occurrence of old_string (default false).",
      "type": "boolean"
    }
  },
  "required": [
    "file_path",
    "old_string",
    "new_string"
  ],
  "additionalProperties": false
};

export const GLOB_INPUT_JSON_SCHEMA: Readonly<Record<string, unknown>> = {
  "type": "object",
  "properties": {
    "pattern": {
      "type": "string",
      "description": "Glob pattern, e.g. \"**/*.ts\" or \"src/**/*.{js,jsx}\". Relative to path."
    },
    "path": {
      "description": "Directory to search in (default: the working directory).",
      "type": "string"
    }
  },
  "required": [
    "pattern"
  ],
  "additionalProperties": false
};

export const GREP_INPUT_JSON_SCHEMA: Readonly<Record<string, unknown>> = {
  "type": "object",
  "properties": {
    "pattern": {
      "type": "string",
      "description": "Regular expression to search for (RE2/ripgrep syntax: no lookaround or backreferences)."
    },
    "path": {
      "description": "File or directory to search (default: the working directory).",
      "type": "string"
    },
    "glob": {
      "description": "Only search files matching this glob, e.g. \"*.ts\" or \"src/**/*.{js,jsx}\".",
      "type": "string"
    },
    "output_mode": {
      "description": "\"files_with_matches\" (default): paths only; \"content\": matching lines; \"count\": matches per file.",
      "type": "string",
      "enum": [
        "content",
        "files_with_matches",
        "count"
      ]
    },
    "-i": {
      "description": "Case-insensitive search.",
      "type": "boolean"
    },
    "-n": {
      "description": "Show line numbers in content mode (default true).",
      "type": "boolean"
    },
    "-A": {
      "description": "Lines of context after each match (content mode).",
      "type": "integer",
      "minimum": 0,
      "maximum": 9007199254740991
    },
    "-B": {
      "description": "Lines of context before each match (content mode).",
      "type": "integer",
      "minimum": 0,
      "maximum": 9007199254740991
    },
    "-C": {
      "description": "Lines of context before and after each match (content mode).",
      "type": "integer",
      "minimum": 0,
      "maximum": 9007199254740991
    },
    "head_limit": {
      "description": "Return only the first N lines / files / counts.",
      "type": "integer",
      "exclusiveMinimum": 0,
      "maximum": 9007199254740991
    }
  },
  "required": [
    "pattern"
  ],
  "additionalProperties": false
};

export const BASH_INPUT_JSON_SCHEMA: Readonly<Record<string, unknown>> = {
  "type": "object",
  "properties": {
    "command": {
      "type": "string",
      "minLength": 1,
      "description": "The command to run with bash -c in the working directory."
    },
    "timeout": {
      "description": "Timeout in milliseconds (default 120000, at most 600000).",
      "type": "integer",
      "exclusiveMinimum": 0,
      "maximum": 600000
    },
    "description": {
      "description": "A few words saying what the command does, for the user.",
      "type": "string"
    }
  },
  "required": [
    "command"
  ],
  "additionalProperties": false
};

export const AGENT_INPUT_JSON_SCHEMA: Readonly<Record<string, unknown>> = {
  "type": "object",
  "properties": {
    "description": {
      "type": "string",
      "minLength": 1,
      "description": "A short (3-5 word) label for the task, shown to the user"
    },
    "prompt": {
      "type": "string",
      "minLength": 1,
      "description": "The complete task for the subagent: it sees nothing else of this conversation"
    },
    "subagent_type": {
      "type": "string",
      "minLength": 1,
      "description": "Which kind of subagent to start (one of the types listed in the description)"
    },
    "run_in_background": {
      "description": "Start it and return at once; its final message is delivered to you later as a message",
      "type": "boolean"
    }
  },
  "required": [
    "description",
    "prompt",
    "subagent_type"
  ],
  "additionalProperties": false
};
