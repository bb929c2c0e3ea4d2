export function pad(s){
    return '  '+s
}
