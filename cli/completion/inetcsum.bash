# bash completion for inetcsum (installed as share/bash-completion/completions/inetcsum).
# test_cli checks that every option of every `inetcsum COMMAND --help` is offered here.
_inetcsum()
{
    local cur prev cmd
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD-1]}
    if [ "$COMP_CWORD" -eq 1 ]; then
        COMPREPLY=($(compgen -W "verify fix sum impls gen segment bench --help --version" -- "$cur"))
        return
    fi
    cmd=${COMP_WORDS[1]}
    local opts captures=1
    case $cmd in
        verify) opts="--json --udp6-zero-ok --unfollowed-ok --no-reassemble --only --skip --quiet --recursive --jobs --interface --count --duration --write --help"
                case $prev in
                    -j|--jobs|-c|--count|--duration) return ;;
                    -i|--interface) COMPREPLY=($(compgen -W "$(ls /sys/class/net 2>/dev/null)" -- "$cur")); return ;;
                esac ;;
        fix)    opts="--input --output --in-place --all --udp-zero=keep --udp-zero=fill --udp6-zero-ok --unfollowed-ok --no-reassemble --only --skip --quiet --verbose --json --recursive --jobs --help"
                case $prev in -j|--jobs) return ;; esac ;;
        sum)    opts="--seed --offset --length --partial --tag --zero --check --quiet --status --strict --ignore-missing --help"; captures=0 ;;
        impls)  opts="--help"; captures=0 ;;
        gen)    opts="--frames --size --bad --mix --frame-size --fragment --mtu --seed --format --quiet --help"
                case $prev in
                    --mix) COMPREPLY=($(compgen -W "all common" -- "$cur")); return ;;
                    --format) COMPREPLY=($(compgen -W "pcap pcapng" -- "$cur")); return ;;
                    --frames|--size|--bad|--frame-size|--fragment|--mtu|--seed) return ;;
                esac ;;
        segment) opts="--mtu --udp-size --quiet --json --help"
                case $prev in --mtu|--udp-size) return ;; esac ;;
        bench)  opts="--quick --smoke --json --plot --impl --cpu --trials --starts --all --confidence --help"; captures=0
                case $prev in
                    --impl) COMPREPLY=($(compgen -W "$(inetcsum impls 2>/dev/null | awk '/runs on this CPU/ {print $1}')" -- "$cur")); return ;;
                    --json|--plot) COMPREPLY=($(compgen -f -- "$cur")); return ;;
                    --cpu|--trials|--starts|--confidence) return ;;
                esac
                if [[ $cur != -* ]]; then
                    COMPREPLY=($(compgen -W "sizes sweep row copy jitter cold prefetch offload crc32c packet dram gso capture dpdk xsk all compare" -- "$cur"))
                    [ "${COMP_WORDS[2]}" = compare ] && COMPREPLY=($(compgen -f -X '!*.json' -- "$cur") $(compgen -d -- "$cur"))
                    return
                fi ;;
        *) return ;;
    esac
    case $prev in
        --seed|--offset|--length) return ;;
        --only|--skip) COMPREPLY=($(compgen -W "ipv4 tcp udp udplite icmp icmpv6 igmp gre sctp mh pim ospf vrrp eigrp dccp rsvp nhrp fcs pgm" -- "$cur")); return ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
        [[ ${COMPREPLY[0]} == *= ]] && compopt -o nospace
    elif [ "$captures" -eq 1 ]; then
        COMPREPLY=($(compgen -f -X '!*.@(pcap|pcapng|cap|ntar)?(.gz|.zst|.xz)' -- "$cur") $(compgen -d -- "$cur"))
    else
        COMPREPLY=($(compgen -f -- "$cur"))
    fi
}
complete -F _inetcsum inetcsum
