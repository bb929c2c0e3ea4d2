/**
 * The V4A patch language as a Lark grammar, for a provider that constrains a free-form tool's input to a
 * grammar (the OpenAI Responses API's custom tools). It is the strict form: the parser forgives more.
 */
export const APPLY_PATCH_LARK_GRAMMAR = String.raw`start: begin file_op+ finish
begin: "*** Begin Patch" LF
finish: "*** End Patch" LF?

file_op: add_file | delete_file | update_file
add_file: "*** Add File: " path LF added_line*
delete_file: "*** Delete File: " path LF
update_file: "*** Update File: " path LF move_to? chunk*
move_to: "*** Move to: " path LF

chunk: chunk_header+ chunk_line+ end_of_file?
chunk_header: "@@" anchor? LF
chunk_line: CHANGE LF
end_of_file: "*** End of File" LF
added_line: "+" TEXT LF

path: TEXT
anchor: / [^\r\n]+/
CHANGE: /[ +\-][^\r\n]*/
TEXT: /[^\r\n]*/

%import common.LF
`;
