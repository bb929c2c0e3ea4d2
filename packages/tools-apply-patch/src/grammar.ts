/**
 * The V4A patch language as a Lark grammar, for a provider that constrains a free-form tool's input to a
 * grammar (the OpenAI Responses API's custom tools). It keeps to the constructs OpenAI's constrained decoder
 * is known to take for this format (inline regexes that may match nothing, `%import common.LF`), which
 * Python's lark, for one, refuses. The parser forgives more than the grammar allows.
 */
export const APPLY_PATCH_LARK_GRAMMAR: string = `start: begin file_op+ finish
begin: "*** Begin Patch" LF
finish: "*** End Patch" LF?

file_op: add_file | delete_file | update_file
add_file: "*** Add File: " path LF added_line*
delete_file: "*** Delete File: " path LF
update_file: "*** Update File: " path LF move_to? change?
move_to: "*** Move to: " path LF

change: (chunk_header | chunk_line | end_of_file)+
chunk_header: ("@@" | "@@ " /(.+)/) LF
chunk_line: ("+" | "-" | " ") /(.*)/ LF
end_of_file: "*** End of File" LF
added_line: "+" /(.*)/ LF

path: /(.+)/

%import common.LF
`;
