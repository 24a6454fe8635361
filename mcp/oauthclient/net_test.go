package oauthclient_test

import "net"

func listenOn(port string) (net.Listener, error) { return net.Listen("tcp", "127.0.0.1:"+port) }
