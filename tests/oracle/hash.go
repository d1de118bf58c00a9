package main

import awsv1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"

// nodeClassHash is EC2NodeClass.Hash as the drift controller calls it without a CA bundle (aws/karpenter-provider-aws
// v1.14.1 pkg/apis/v1/ec2nodeclass.go Hash(caBundle)); tests/oracle/v1_9/hash.go is v1.9's, which takes none.
func nodeClassHash(nc *awsv1.EC2NodeClass) string { return nc.Hash(nil) }
